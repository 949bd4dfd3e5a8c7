// Other parties' tools against both HTTP endpoints, the relay (local workerd) and `vimrelay serve
// --http`, in both protocol eras (helpers/peers.ts):
//   - the MCP conformance suite, through a loopback proxy that adds the token (it has no auth
//     option), judged against the committed expected-failures baselines
//     (conformance-baseline-<revision>.yml): a scored scenario that fails, or warns, on a check
//     not listed there fails the test;
//   - the MCP Inspector's CLI with the token in a header: tools/list and tools/call, modern and
//     legacy era, and its schema lint (`--strict`): no tool schema it finds less than portable.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../protocol/index.ts';
import { isolatedEnv } from '../helpers/agent-process.ts';
import { startAuthProxy, type AuthProxy } from '../helpers/auth-proxy.ts';
import { PEER, peersMissing, runPeer } from '../helpers/peers.ts';
import { withRelay, type TestRelay } from '../helpers/relay.ts';
import { startServeHttp, type ServeHttpProcess } from '../helpers/serve-process.ts';
import { tempDir } from '../helpers/temp.ts';

const missing = peersMissing();
if (missing) console.warn(`skipping the peer tests: ${missing}`);

/** The requirement sets the suite scores, one per era. */
const REVISIONS = { modern: '2026-07-28', legacy: '2025-11-25' } as const;

type Endpoint = 'relay' | 'http';

interface Target {
  mcpUrl: string;
  token: string;
  stop(): Promise<void>;
}

async function startTarget(endpoint: Endpoint): Promise<Target> {
  if (endpoint === 'relay') {
    const relay: TestRelay = await withRelay();
    return { mcpUrl: relay.mcpUrl, token: await relay.mint({ kind: 'access', name: 'peers' }), stop: () => relay.stop() };
  }
  const env = isolatedEnv();
  const serve: ServeHttpProcess = await startServeHttp(['--port', '0', '--discover-dir', String(env.XDG_RUNTIME_DIR)], env);
  return { mcpUrl: serve.mcpUrl, token: serve.token, stop: async () => void (await serve.stop()) };
}

/** The server scenarios the suite scores for `revision` (its `list`; extension scenarios also run but are not scored). */
async function scoredScenarios(revision: string): Promise<string[]> {
  const run = await runPeer(PEER.conformance, ['list', '--server', '--requirements', revision]);
  const servers = run.stdout.split('Client scenarios')[0] ?? '';
  return [...servers.matchAll(/^\s+- ([\w-]+)$/gm)].map((m) => m[1] ?? '');
}

interface Tally {
  passed: string[];
  expected: string[];
  unexpected: string[];
}

/**
 * Each scored scenario of a run (`-o dir`: one `<kind>-<scenario>-<time>/checks.json` each) as
 * passed, an expected failure (every failing or warning check is baselined, by scenario or by
 * `scenario:check`), or an unexpected one.
 */
function tally(dir: string, scored: readonly string[], baseline: string): Tally {
  const entries = new Set([...baseline.matchAll(/^\s+- ([\w:-]+)/gm)].map((m) => m[1] ?? ''));
  const out: Tally = { passed: [], expected: [], unexpected: [] };
  for (const scenario of scored) {
    const run = readdirSync(dir).find((d) => d.startsWith(`server-${scenario}-2`));
    if (run === undefined) {
      out.unexpected.push(scenario);
      continue;
    }
    const checks = JSON.parse(readFileSync(join(dir, run, 'checks.json'), 'utf8')) as { id: string; status: string }[];
    const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    if (bad.length === 0) out.passed.push(scenario);
    else if (entries.has(scenario) || bad.every((c) => entries.has(`${scenario}:${c.id}`))) out.expected.push(scenario);
    else out.unexpected.push(scenario);
  }
  return out;
}

describe.skipIf(missing !== null).each<Endpoint>(['relay', 'http'])('peers against %s', (endpoint) => {
  let target: Target;
  let proxy: AuthProxy;

  beforeAll(async () => {
    target = await startTarget(endpoint);
    proxy = await startAuthProxy(target.mcpUrl, target.token);
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    await target?.stop();
  });

  describe.each(Object.entries(REVISIONS))('the conformance suite, %s era', (_era, revision) => {
    it(`passes every ${revision} scenario but the baselined ones, each with its reason`, async () => {
      const baseline = join(import.meta.dirname, `conformance-baseline-${revision}.yml`);
      const out = tempDir('vimrelay-conformance-');
      const run = await runPeer(PEER.conformance, ['server', '--url', proxy.url, '--requirements', revision, '--expected-failures', baseline, '-o', out]);
      const report = run.stdout + run.stderr;
      const { passed, expected, unexpected } = tally(out, await scoredScenarios(revision), readFileSync(baseline, 'utf8'));
      console.log(`conformance ${revision} on ${endpoint}: ${passed.length} passed, ${expected.length} expected failures, ${unexpected.length} failed${unexpected.length ? ` (${unexpected.join(', ')})` : ''}`);
      expect(run.code, report).toBe(0);
      expect(report).toContain('Baseline check passed');
      expect(unexpected).toEqual([]);
      // Every baselined scenario says why.
      for (const line of readFileSync(baseline, 'utf8').split('\n').filter((l) => /^\s*- /.test(l))) expect(line, 'a baseline entry without its reason').toMatch(/ # \S/);
      // The scenarios vimrelay can pass do pass (a baseline that swallowed them would not show here).
      expect(passed).toEqual(expect.arrayContaining(['tools-list', 'dns-rebinding-protection']));
    }, 120_000);
  });

  describe.each(['modern', 'legacy'] as const)('the MCP Inspector CLI, %s era', (era) => {
    const inspect = (args: string[]): ReturnType<typeof runPeer> =>
      runPeer(PEER.inspector, ['--cli', target.mcpUrl, '--transport', 'http', '--header', `Authorization: Bearer ${target.token}`, '--protocol-era', era, ...args], {
        // No OS keychain here: the Inspector keeps what it stores in memory.
        MCP_INSPECTOR_SECRET_STORE: 'memory',
      });

    it('lists the catalog, every schema portable, and calls a tool', async () => {
      const listed = await inspect(['--method', 'tools/list', '--strict']);
      expect(listed.code, listed.stderr).toBe(0);
      // --strict writes each finding of its schema lint (a `type` list, a bare boolean schema, ...) to stderr.
      expect(listed.stderr).not.toMatch(/^(Warning|Error): tool/m);
      const { tools } = JSON.parse(listed.stdout) as { tools: { name: string }[] };
      expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));

      const called = await inspect(['--method', 'tools/call', '--tool-name', 'list_editors']);
      expect(called.code, called.stderr).toBe(0);
      const result = JSON.parse(called.stdout) as { structuredContent?: unknown; _meta?: Record<string, unknown> };
      expect(result.structuredContent).toEqual({ editors: [], count: 0 });
      // A 2026-07-28 result names the server in its own _meta; a 2025 one does not.
      expect(result._meta?.['io.modelcontextprotocol/serverInfo'] !== undefined).toBe(era === 'modern');
    }, 60_000);

    it('without the token gets no answer', async () => {
      const run = await runPeer(PEER.inspector, ['--cli', target.mcpUrl, '--transport', 'http', '--protocol-era', era, '--method', 'tools/list'], { MCP_INSPECTOR_SECRET_STORE: 'memory' });
      expect(run.code).not.toBe(0);
      expect(run.stdout).not.toContain('list_editors');
    }, 60_000);
  });
});
