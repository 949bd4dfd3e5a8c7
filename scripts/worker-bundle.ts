/**
 * The Worker bundled exactly as `wrangler deploy` would upload it (`--dry-run --outdir`), with the
 * Miniflare options wrangler derives from wrangler.toml (`unstable_getMiniflareWorkerOptions`:
 * bindings, compatibility, module rules), for the local relay (`relay-process.ts`). Bundling takes
 * wrangler's command line about a second and a half and loading wrangler's API most of another,
 * so both are kept under `.wrangler/bundles/<digest>/` (`index.js`, `options.json`; kept-build.ts),
 * the digest being that of what they are built from (BUNDLE_INPUTS: the Worker's sources, the
 * protocol it shares, the lock file that pins wrangler and every dependency, the configuration).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { WorkerOptions } from 'miniflare';
import { inputsDigest } from './inputs-digest.mjs';
import { keptBuild } from './kept-build.ts';

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
  const digest = inputsDigest(root, BUNDLE_INPUTS).slice(0, 16);
  const kept = await keptBuild(join(root, '.wrangler', 'bundles'), digest, 'options.json', (into) => build(root, into));
  // Written by build() above from wrangler's own Miniflare options.
  const cached = JSON.parse(readFileSync(join(kept, 'options.json'), 'utf8')) as Omit<LocalWorker, 'scriptPath'>;
  return { ...cached, scriptPath: join(kept, 'index.js') };
}
