/**
 * `npm run conformance [-- <MCP URL> <access token>]`: the MCP conformance suite and the MCP
 * Inspector's CLI against a vimrelay MCP endpoint, as the tests run them (test/e2e/peers.test.ts),
 * from test/peers (`npm ci --prefix test/peers`: the suite, the Inspector and the Node 22 the
 * suite needs, run by path; the system's Node is untouched).
 *
 * Without arguments it starts a `vimrelay serve --http` of its own (in a temporary home, so that it
 * takes nothing of yours, your Vims included) and stops it at the end; with them it runs against
 * that endpoint, the relay of `npm start` say. The suite has no way to send a token: it talks to a
 * loopback proxy that adds `Authorization: Bearer <token>` (test/helpers/auth-proxy.ts). It scores
 * each revision vimrelay serves (2026-07-28 and 2025-11-25) against the committed baselines of
 * expected failures (test/e2e/conformance-baseline-<revision>.yml); the Inspector lists the tools
 * in both eras with its schema lint (`--strict`). Exits 0 when all of that passes.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { isolatedEnv } from '../test/helpers/agent-process.ts';
import { startAuthProxy } from '../test/helpers/auth-proxy.ts';
import { PEER, peersMissing } from '../test/helpers/peers.ts';
import { startServeHttp, type ServeHttpProcess } from '../test/helpers/serve-process.ts';
import { tempDir } from '../test/helpers/temp.ts';
import { ROOT } from './local-relay.ts';

/** The revisions the suite scores, newest first. */
const REVISIONS = ['2026-07-28', '2025-11-25'] as const;

/**
 * Runs `script args` on the peers' Node 22, its stderr on ours, and its stdout too unless `keep`
 * (then it is returned); resolves with its exit code.
 */
function runOnNode22(script: string, args: string[], options: { env?: NodeJS.ProcessEnv; keep?: boolean } = {}): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    // A home of its own: the Inspector keeps state there; no OS keychain is asked for.
    const env = { ...process.env, HOME: tempDir('vimrelay-peer-'), NO_COLOR: '1', ...options.env };
    const child = spawn(PEER.node, [script, ...args], { stdio: ['ignore', options.keep ? 'pipe' : 'inherit', 'inherit'], env });
    let stdout = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout }));
  });
}

/** How many tools a tools/list result the Inspector printed holds, or null when it is none. */
function toolCount(stdout: string): number | null {
  try {
    const tools = (JSON.parse(stdout) as { tools?: unknown }).tools;
    return Array.isArray(tools) ? tools.length : null;
  } catch {
    return null;
  }
}

async function main(args: string[]): Promise<number> {
  if (args.length !== 0 && args.length !== 2) {
    process.stderr.write('usage: npm run conformance [-- <MCP URL> <access token>]\n');
    return 2;
  }
  const missing = peersMissing();
  if (missing) {
    process.stderr.write(`conformance: ${missing}\n`);
    return 1;
  }
  let serve: ServeHttpProcess | undefined;
  let target: { mcpUrl: string; token: string };
  if (args[0] !== undefined && args[1] !== undefined) {
    target = { mcpUrl: args[0], token: args[1] };
  } else {
    const env = isolatedEnv();
    serve = await startServeHttp(['--port', '0', '--discover-dir', String(env.XDG_RUNTIME_DIR)], env);
    target = { mcpUrl: serve.mcpUrl, token: serve.token };
    process.stdout.write(`== vimrelay serve --http of its own at ${target.mcpUrl}\n`);
  }
  const proxy = await startAuthProxy(target.mcpUrl, target.token);
  const failed: string[] = [];
  try {
    for (const revision of REVISIONS) {
      process.stdout.write(`\n== the MCP conformance suite, ${revision}, against ${target.mcpUrl} (through ${proxy.url}, which adds the token)\n`);
      const baseline = join(ROOT, 'test', 'e2e', `conformance-baseline-${revision}.yml`);
      const { code } = await runOnNode22(PEER.conformance, ['server', '--url', proxy.url, '--requirements', revision, '--expected-failures', baseline, '-o', tempDir('vimrelay-conformance-')]);
      if (code !== 0) failed.push(`conformance ${revision}`);
    }
    for (const era of ['modern', 'legacy'] as const) {
      process.stdout.write(`\n== the MCP Inspector CLI, ${era} era: tools/list with its schema lint (its findings, if any, below)\n`);
      const inspector = ['--cli', target.mcpUrl, '--transport', 'http', '--header', `Authorization: Bearer ${target.token}`, '--protocol-era', era, '--method', 'tools/list', '--strict'];
      const { code, stdout } = await runOnNode22(PEER.inspector, inspector, { env: { MCP_INSPECTOR_SECRET_STORE: 'memory' }, keep: true });
      const tools = toolCount(stdout);
      process.stdout.write(tools === null ? `no tools/list result:\n${stdout}\n` : `${tools} tools listed\n`);
      if (code !== 0 || tools === null) failed.push(`inspector ${era}`);
    }
  } finally {
    await proxy.close();
    await serve?.stop();
  }
  process.stdout.write(failed.length === 0 ? '\nconformance: every check passed\n' : `\nconformance: failed: ${failed.join(', ')}\n`);
  return failed.length === 0 ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
