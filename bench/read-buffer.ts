/**
 * `npm run bench`: latency of read_buffer through the whole local chain (MCP SDK client ->
 * wrangler dev -> Hub -> agent process -> Neovim), beside the same read done by the agent's
 * adapter alone and by a direct `nvim_buf_get_lines`, all measured in this run. Machines here
 * are noisy, so the figures that matter are the ratios against the direct read.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { controlWithin } from '../agent/editors/call.ts';
import { NvimEditor } from '../agent/editors/nvim/editor.ts';
import { readBufferTool } from '../agent/editors/tools/index.ts';
import { isolatedEnv, runCli, startAgentProcess } from '../test/helpers/agent-process.ts';
import { callOk, connectMcp } from '../test/helpers/mcp.ts';
import { startNvim } from '../test/helpers/nvim.ts';
import { withRelay } from '../test/helpers/relay.ts';

const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const WARMUP = 50;
const LINES = 20;

interface Stats {
  median: number;
  p99: number;
}

async function measure(fn: () => Promise<unknown>): Promise<Stats> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number): number => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? NaN;
  return { median: at(0.5), p99: at(0.99) };
}

const text = Array.from({ length: LINES }, (_, i) => `line ${i + 1}: héllo wörld — 日本語`).join('\n') + '\n';
const relay = await withRelay();
const env = isolatedEnv({ VIMRELAY_OWNER_SECRET: relay.ownerSecret });
const sockets = join(String(env.HOME), 'sockets');
mkdirSync(sockets);
runCli(['enroll', '--relay', relay.url, '--name', 'bench'], env);
const agent = startAgentProcess(['--relay', relay.url, '--discover-dir', sockets], env);
const nvim = await startNvim({ files: { 'bench.txt': text }, open: ['bench.txt'], listen: join(sockets, 'nvim.bench.0') });
const token = await relay.mint({ kind: 'access', name: 'bench' });
const client = await connectMcp(relay.mcpUrl, token);
try {
  while ((await callOk(client, 'list_editors')).count !== 1) await new Promise((r) => setTimeout(r, 100));
  const adapter = await NvimEditor.attach(nvim.socket, { signal: AbortSignal.timeout(10_000) });

  const direct = await measure(() => nvim.client.request('nvim_buf_get_lines', [0, 0, LINES, false]));
  const local = await measure(() => adapter.run(readBufferTool, {}, controlWithin(30_000)));
  const health = await measure(() => fetch(`${relay.url}/health`).then((r) => r.text()));
  // A raw POST, not client.listTools(): the SDK client compiles every outputSchema on each list.
  const listRequest = {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  };
  const list = await measure(() => fetch(relay.mcpUrl, listRequest).then((r) => r.text()));
  const chain = await measure(() => callOk(client, 'read_buffer', {}));
  await adapter.close();

  const row = (name: string, s: Stats): string =>
    `${name.padEnd(44)} ${s.median.toFixed(3).padStart(8)} ${s.p99.toFixed(3).padStart(8)} ${(s.median / direct.median).toFixed(1).padStart(8)}x ${(s.p99 / direct.p99).toFixed(1).padStart(8)}x`;
  process.stdout.write(
    [
      `read_buffer of ${LINES} lines, ${CALLS} calls each after ${WARMUP} warm-up calls (ms)`,
      `${'path'.padEnd(44)} ${'median'.padStart(8)} ${'p99'.padStart(8)} ${'median/'.padStart(9)} ${'p99/'.padStart(9)}`,
      row('direct nvim_buf_get_lines (baseline)', direct),
      row('agent adapter (one nvim_exec_lua)', local),
      row('relay alone: GET /health', health),
      row('relay alone: tools/list over raw HTTP', list),
      row('whole chain (MCP client -> relay -> agent)', chain),
      '',
    ].join('\n'),
  );
} finally {
  await client.close();
  await agent.stop();
  await nvim.stop();
  await relay.stop();
}
