/**
 * The relay process (`relay-process.ts` and what it imports) as one plain JavaScript file, which
 * the launcher (local-relay.ts) runs with Node alone. Run through tsx instead, each start spent
 * about 1.4 s of CPU compiling the scripts in a loader thread, of 2.2 s in all; bundled, a start
 * takes about 0.8 s. Packages stay outside the bundle, found from the project's node_modules.
 * Kept under `.wrangler/relay/<digest>/relay-process.mjs` (kept-build.ts), the digest being that
 * of what it is built from (RELAY_INPUTS): built once per change of the scripts.
 */
import { join } from 'node:path';
import { inputsDigest } from './inputs-digest.mjs';
import { keptBuild } from './kept-build.ts';
import { RELAY_SCRIPT } from './state-lock.ts';

/** What the relay process is built from, relative to the project root: the scripts, the agent's private-file helper, the lock file that pins esbuild. */
const RELAY_INPUTS = ['scripts', 'agent/config', 'package-lock.json'];


/** The relay process's script for the project at `root`, bundled first unless it is kept. */
export async function relayScript(root: string): Promise<string> {
  const digest = inputsDigest(root, RELAY_INPUTS).slice(0, 16);
  const kept = await keptBuild(join(root, '.wrangler', 'relay'), digest, RELAY_SCRIPT, async (into) => {
    const { build } = await import('esbuild');
    await build({
      entryPoints: [join(root, 'scripts', 'relay-process.ts')],
      outfile: join(into, RELAY_SCRIPT),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'silent',
    });
  });
  return join(kept, RELAY_SCRIPT);
}
