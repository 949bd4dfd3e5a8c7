/**
 * The Worker bundled exactly as `wrangler deploy` would upload it (`--dry-run --outdir`), with the
 * Miniflare options wrangler derives from wrangler.toml (`unstable_getMiniflareWorkerOptions`:
 * bindings, compatibility, module rules), for the local relay (`relay-process.ts`). Bundling takes
 * wrangler's command line about a second and a half and loading wrangler's API most of another,
 * so both are kept under `.wrangler/bundles/<digest>/` (`index.js`, `options.json`), the digest
 * being that of what they are built from (BUNDLE_INPUTS: the Worker's sources, the protocol it
 * shares, the lock file that pins wrangler and every dependency, the configuration); a relay
 * started on unchanged sources reuses them. Relays started at once (the tests) may each build:
 * each in a directory of its own, renamed into place; a rename that finds the place taken leaves
 * the one there. When a new bundle is in place, other bundles and unfinished builds (a relay
 * stopped while building) go once they are STALE_MS old (a running workerd has its script in
 * memory already; a relay starting on one has long read it).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { WorkerOptions } from 'miniflare';
import { inputsDigest } from './inputs-digest.mjs';

/**
 * The Worker as Miniflare runs it. `options.bindings` holds wrangler.toml's `[vars]` only: the
 * relay adds `.dev.vars` and its launcher's variables at each start (they are not sources).
 */
export interface LocalWorker {
  readonly scriptPath: string;
  readonly name: string;
  readonly options: WorkerOptions;
}

/** What the bundle is built from, relative to the project root. */
const BUNDLE_INPUTS = ['worker', 'protocol', 'package.json', 'package-lock.json', 'wrangler.toml', 'tsconfig.json', 'tsconfig.base.json'];

/** A kept bundle's directory name, or (with the suffix mkdtemp adds) a build's. */
const BUNDLE_DIR = /^[0-9a-f]{16}(-[\w]{6})?$/;

/** How old a bundle of other sources must be to be removed. */
const STALE_MS = 10 * 60_000;

/** Builds the bundle and its options for the project at `root` into `outdir`. */
async function build(root: string, outdir: string): Promise<void> {
  const config = join(root, 'wrangler.toml');
  const wrangler = createRequire(import.meta.url).resolve('wrangler/bin/wrangler.js');
  const built = spawnSync(process.execPath, [wrangler, 'deploy', '--dry-run', '--outdir', outdir, '--config', config], { cwd: root, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`bundling the Worker failed (${built.signal ?? `code ${built.status}`}):\n${built.stdout}${built.stderr}`);
  const { unstable_getMiniflareWorkerOptions, unstable_readConfig } = await import('wrangler');
  const read = unstable_readConfig({ config });
  const { workerOptions } = unstable_getMiniflareWorkerOptions(read);
  const cached: Omit<LocalWorker, 'scriptPath'> = { name: read.name ?? 'vimrelay', options: { ...workerOptions, bindings: read.vars } };
  writeFileSync(join(outdir, 'options.json'), JSON.stringify(cached));
}

/** The project's Worker, built first unless a bundle of the same sources is kept. */
export async function localWorker(root: string): Promise<LocalWorker> {
  const dir = join(root, '.wrangler', 'bundles');
  const digest = inputsDigest(root, BUNDLE_INPUTS).slice(0, 16);
  const kept = join(dir, digest);
  const options = join(kept, 'options.json');
  if (!existsSync(options)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const building = mkdtempSync(join(dir, `${digest}-`));
    try {
      await build(root, building);
      renameSync(building, kept);
    } catch (error) {
      // Another relay put the same bundle in place first: use that one.
      if (!existsSync(options)) throw error;
    } finally {
      rmSync(building, { recursive: true, force: true });
    }
    for (const name of readdirSync(dir)) {
      const old = join(dir, name);
      if (BUNDLE_DIR.test(name) && name !== digest && Date.now() - (lstatSync(old, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > STALE_MS) rmSync(old, { recursive: true, force: true });
    }
  }
  // Written by build() above from wrangler's own Miniflare options.
  const cached = JSON.parse(readFileSync(options, 'utf8')) as Omit<LocalWorker, 'scriptPath'>;
  return { ...cached, scriptPath: join(kept, 'index.js') };
}
