/**
 * `npm run bench`: vimrelay's speed and footprint, each figure beside a baseline measured in the
 * same run (machines here are noisy: the ratios are what to read), with the machine's load average.
 * The baseline of every read is the editor's own RPC: one direct `nvim_buf_get_lines` of the same
 * lines; of every start, `node -e 0`. It never fails on a number; a wrong result (every read is
 * checked line by line) is an error, not a sample. Goals are printed beside the figures.
 *
 *   - a 1,000-line read_buffer: p50 through `serve --stdio`, `serve --http` and the relay, and
 *     through `serve --stdio` again with a bare JSON-RPC client (bench/bare-stdio.ts): how much of
 *     the SDK client's figure is the measuring client's own work;
 *   - 32 callers at once: calls per second through the relay and `serve --stdio`;
 *   - memory: `serve --stdio`'s peak under 32 callers, an idle agent, an agent after 5,000 calls;
 *   - an idle agent's CPU with default discovery (it scans the system temp directory), settled
 *     and in its first 30 s;
 *   - a 100,000-line buffer read whole, page by page, through the relay;
 *   - the 1,000-line read on a Vim, beside the same read on Neovim;
 *   - what an accepted review adds to a 1,000-line buffer's find_and_replace, through the relay
 *     and `serve --stdio`, beside the same edit made directly, and the human's side of it
 *     (bench/review.ts);
 *   - CLI start (bench/cli-start.ts).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LIMITS } from '../protocol/index.ts';
import { REVIEW_QUIET_MS } from '../agent/editors/reviews.ts';
import { CLI, isolatedEnv, runCli, startAgentProcess } from '../test/helpers/agent-process.ts';
import { connectMcp, connectStdio } from '../test/helpers/mcp.ts';
import { startNvim } from '../test/helpers/nvim.ts';
import { withRelay } from '../test/helpers/relay.ts';
import { startServeHttp } from '../test/helpers/serve-process.ts';
import { startVim } from '../test/helpers/vim.ts';
import { waitFor } from '../test/helpers/wait.ts';
import { bareStdio } from './bare-stdio.ts';
import { cliStart } from './cli-start.ts';
import { reviewTimes } from './review.ts';
import { cpuShare, latency, loadAverage, memory, throughput } from './stats.ts';

const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const WARMUP = 30;
const CALLERS = 32;
const CONCURRENT_CALLS = Number(process.env.BENCH_CONCURRENT_CALLS ?? 2_000);
const LEAK_CALLS = 5_000;
const BIG = 100_000;
const REVIEWS = Number(process.env.BENCH_REVIEWS ?? 20);

/** 1,000 lines of about 62 bytes, multi-byte characters included (about 62 KB). */
const lines = Array.from({ length: 1_000 }, (_, i) => `${String(i + 1).padStart(4, '0')} héllo wörld — 日本語 the quick brown fox`);
const big = Array.from({ length: BIG }, (_, i) => `${i + 1} ${'é日😀x'.repeat(i % 17)}`);

interface ReadResult {
  structuredContent?: { lines?: string[]; next_start_line?: number | null };
  content?: { type: string; text?: string }[];
  isError?: boolean;
}
type Caller = { callTool(request: { name: string; arguments: Record<string, unknown> }): Promise<unknown> };

const rows: string[] = [];
const row = (figure: string, value: string, base: string, ratio: string, goal: string): void => {
  rows.push(`${figure.padEnd(48)} ${value.padStart(11)} ${base.padStart(11)} ${ratio.padStart(8)}   ${goal}`);
};
const ms = (n: number): string => `${n.toFixed(2)} ms`;
const x = (n: number): string => `${n.toFixed(2)}x`;

function checkLines(expected: readonly string[]) {
  return (result: unknown): void => {
    const r = result as ReadResult;
    const got = r.structuredContent?.lines;
    if (r.isError || !got || got.length !== expected.length || got.some((l, i) => l !== expected[i])) {
      throw new Error(`a read returned the wrong lines: ${JSON.stringify(r).slice(0, 300)}`);
    }
  };
}

const relay = await withRelay();
const env = isolatedEnv({ VIMRELAY_OWNER_SECRET: relay.ownerSecret });
const sockets = join(String(env.HOME), 'sockets');
mkdirSync(sockets);
const nvim = await startNvim({
  files: { 'bench.txt': lines.join('\n') + '\n', 'big.txt': big.join('\n') + '\n', 'review.txt': lines.join('\n') + '\n' },
  open: ['bench.txt', 'big.txt', 'review.txt'],
  listen: join(sockets, 'nvim.bench.0'),
});
const stops: (() => Promise<unknown>)[] = [];
try {
  const bigBuf = (await nvim.lua<number>('return vim.fn.bufnr("big.txt")')) as number;
  const benchBuf = (await nvim.lua<number>('return vim.fn.bufnr("bench.txt")')) as number;
  await nvim.lua('vim.fn.bufload(...)', bigBuf);
  await nvim.lua('vim.api.nvim_set_current_buf(...)', benchBuf);

  // The editor's own RPC: the floor.
  const floor = await latency(CALLS, WARMUP, () => nvim.client.request('nvim_buf_get_lines', [benchBuf, 0, -1, false]), (got) => checkLines(lines)({ structuredContent: { lines: got as string[] } }));
  const floorRate = await throughput(CALLERS, CONCURRENT_CALLS, () => nvim.client.request('nvim_buf_get_lines', [benchBuf, 0, -1, false]), (got) => checkLines(lines)({ structuredContent: { lines: got as string[] } }));

  // The relay, with this machine's agent.
  runCli(['enroll', '--relay', relay.url, '--name', 'bench'], env);
  const agent = startAgentProcess(['--relay', relay.url, '--discover-dir', sockets], env);
  stops.push(() => agent.stop());
  await agent.waitFor('connected to relay');
  const relayed = await connectMcp(relay.mcpUrl, await relay.mint({ kind: 'access', name: 'bench' }));
  stops.push(() => relayed.close());
  const read = (client: Caller) => () => client.callTool({ name: 'read_buffer', arguments: { buffer: benchBuf } });
  await waitFor(async () => (((await relayed.callTool({ name: 'list_editors', arguments: {} })) as ReadResult).structuredContent as { count?: number } | undefined)?.count === 1 || undefined, 20_000, 'the editor on the relay');
  // Idle as a daemon is: V8 gives back what starting took once the process has been idle a few
  // seconds (its memory reducer), so the figure right after connecting is shown beside it.
  await new Promise((r) => setTimeout(r, 2_000));
  const agentStarted = memory(agent.proc.pid ?? 0).rss;
  await new Promise((r) => setTimeout(r, 13_000));
  const agentIdle = memory(agent.proc.pid ?? 0).rss;

  // serve --stdio and serve --http.
  const stdio = await connectStdio(process.execPath, [CLI, 'serve', '--stdio', '--discover-dir', sockets], env);
  stops.push(() => stdio.client.close());
  const http = await startServeHttp(['--port', '0', '--discover-dir', sockets], env);
  stops.push(() => http.stop());
  const httpClient = await connectMcp(http.mcpUrl, http.token);
  stops.push(() => httpClient.close());
  for (const client of [stdio.client, httpClient]) {
    await waitFor(async () => (((await client.callTool({ name: 'list_editors', arguments: {} })) as ReadResult).structuredContent as { count?: number } | undefined)?.count === 1 || undefined, 20_000, 'the editor served locally');
  }

  const bare = await bareStdio(process.execPath, [CLI, 'serve', '--stdio', '--discover-dir', sockets], env);
  stops.push(() => bare.close());
  await waitFor(async () => (((await bare.callTool({ name: 'list_editors', arguments: {} })) as ReadResult).structuredContent as { count?: number } | undefined)?.count === 1 || undefined, 20_000, 'the editor served to the bare client');

  const viaStdio = await latency(CALLS, WARMUP, read(stdio.client), checkLines(lines));
  const viaBare = await latency(CALLS, WARMUP, read(bare), checkLines(lines));
  const viaHttp = await latency(CALLS, WARMUP, read(httpClient), checkLines(lines));
  const viaRelay = await latency(CALLS, WARMUP, read(relayed), checkLines(lines));
  row('1,000-line read_buffer p50: serve --stdio', ms(viaStdio.p50), ms(floor.p50), x(viaStdio.p50 / floor.p50), '≤ 2x');
  row('1,000-line read_buffer p50: serve --http', ms(viaHttp.p50), ms(floor.p50), x(viaHttp.p50 / floor.p50), '≤ 3x');
  row('1,000-line read_buffer p50: relayed', ms(viaRelay.p50), ms(floor.p50), x(viaRelay.p50 / floor.p50), '≤ 8x');
  row('  (serve --stdio, a bare JSON-RPC client)', ms(viaBare.p50), ms(floor.p50), x(viaBare.p50 / floor.p50), '(the rest: the SDK client)');
  row('  (p99: stdio / http / relayed / floor)', `${viaStdio.p99.toFixed(1)} / ${viaHttp.p99.toFixed(1)} / ${viaRelay.p99.toFixed(1)}`, ms(floor.p99), '', '');

  const stdioRate = await throughput(CALLERS, CONCURRENT_CALLS, read(stdio.client), checkLines(lines));
  const stdioPeak = memory(stdio.pid ?? 0).peak;
  const relayRate = await throughput(CALLERS, CONCURRENT_CALLS, read(relayed), checkLines(lines));
  row(`${CALLERS} callers: relayed calls/s`, relayRate.toFixed(0), floorRate.toFixed(0), x(relayRate / floorRate), '≥ 0.25x');
  row(`${CALLERS} callers: serve --stdio calls/s`, stdioRate.toFixed(0), floorRate.toFixed(0), x(stdioRate / floorRate), '≥ 0.6x');
  row(`serve --stdio peak RSS, ${CALLERS} callers`, `${stdioPeak.toFixed(0)} MiB`, '', '', '≤ 250 MiB');
  row('idle agent RSS (connected 15 s, no call yet)', `${agentIdle.toFixed(0)} MiB`, '', '', '≤ 80 MiB');
  row('  (2 s after connecting)', `${agentStarted.toFixed(0)} MiB`, '', '', '');

  // Leaks: the agent's memory before and after 5,000 more calls, once it has been idle a while.
  const before = memory(agent.proc.pid ?? 0).rss;
  await throughput(8, LEAK_CALLS, read(relayed), checkLines(lines));
  await new Promise((r) => setTimeout(r, 5_000));
  const after = memory(agent.proc.pid ?? 0).rss;
  row(`agent RSS after ${LEAK_CALLS.toLocaleString('en')} more calls, minus before`, `${(after - before).toFixed(0)} MiB`, `${before.toFixed(0)} MiB`, '', '≤ 20 MB');

  // A 100,000-line buffer, read whole: the floor in one call, the relay page by page.
  const bigFloor = await latency(3, 1, () => nvim.client.request('nvim_buf_get_lines', [bigBuf, 0, -1, false]), (got) => checkLines(big)({ structuredContent: { lines: got as string[] } }));
  let largest = 0;
  const pagedRead = async (): Promise<unknown> => {
    const got: string[] = [];
    for (let from: number | null = 1; from !== null; ) {
      const page = (await relayed.callTool({ name: 'read_buffer', arguments: { buffer: bigBuf, start_line: from, max_lines: LIMITS.readMaxLines } })) as ReadResult;
      for (const c of page.content ?? []) largest = Math.max(largest, Buffer.byteLength(c.text ?? ''));
      got.push(...(page.structuredContent?.lines ?? []));
      from = page.structuredContent?.next_start_line ?? null;
      if (page.isError) throw new Error(`a page failed: ${JSON.stringify(page).slice(0, 300)}`);
    }
    return { structuredContent: { lines: got } };
  };
  const bigRelay = await latency(3, 1, pagedRead, checkLines(big));
  row(`${BIG.toLocaleString('en')}-line buffer read whole: relayed, paged`, ms(bigRelay.p50), ms(bigFloor.p50), x(bigRelay.p50 / bigFloor.p50), '≤ 5x');
  row('  largest page text', `${(largest / 1024).toFixed(0)} KB`, '', '', `≤ ${LIMITS.maxResultBytes / 1024} KB`);

  // An agent with the default discovery (no --discover-dir), idle.
  const idleEnv = isolatedEnv({ VIMRELAY_OWNER_SECRET: relay.ownerSecret });
  runCli(['enroll', '--relay', relay.url, '--name', 'bench-idle'], idleEnv);
  const idle = startAgentProcess(['--relay', relay.url], idleEnv);
  stops.push(() => idle.stop());
  await idle.waitFor('connected to relay');
  await new Promise((r) => setTimeout(r, 2_000));
  // 30 s: one whole cycle of the watcher, its periodic rescan (intervalMs) included. The first
  // such window after connecting also holds what V8 does once after a start (its memory reducer's
  // full collections, a one-off); the next one is what the agent costs from then on.
  const started = await cpuShare(idle.proc.pid ?? 0, 30_000);
  const settled = await cpuShare(idle.proc.pid ?? 0, 30_000);
  row('idle agent CPU, default discovery (30 s, settled)', `${settled.toFixed(2)} %`, '', '', '≤ 0.5 %');
  row('  (the first 30 s after connecting)', `${started.toFixed(2)} %`, '', '', '');

  // The same read on a Vim (plugin/vim), through the same agent and relay: beside Neovim's.
  const vimWork = join(String(env.HOME), 'vim-work');
  mkdirSync(vimWork);
  const vim = startVim(env, vimWork, { files: { 'bench.txt': lines.join('\n') + '\n' }, open: ['bench.txt'], name: 'bench-vim' });
  stops.push(() => vim.stop());
  const vimId = await waitFor(async () => {
    const listed = ((await relayed.callTool({ name: 'list_editors', arguments: {} })) as ReadResult).structuredContent as { editors?: { id: string; kind: string }[] } | undefined;
    return listed?.editors?.find((e) => e.kind === 'vim')?.id;
  }, 20_000, 'the Vim on the relay');
  const vimRead = await latency(CALLS, WARMUP, () => relayed.callTool({ name: 'read_buffer', arguments: { editor: vimId, buffer: 'bench.txt' } }), checkLines(lines));
  row('1,000-line read_buffer p50 on Vim: relayed', ms(vimRead.p50), ms(viaRelay.p50), x(vimRead.p50 / viaRelay.p50), '(baseline: Neovim, relayed)');

  // An accepted review beside the same edit made directly (bench/review.ts), the accept typed as
  // keys the moment the review is at the front.
  const reviewBuf = (await nvim.lua<number>('return vim.fn.bufnr("review.txt")')) as number;
  await nvim.lua('vim.fn.bufload(...)', reviewBuf);
  for (const [through, client] of [
    ['relayed', relayed],
    ['serve --stdio', stdio.client],
  ] as const) {
    const listed = ((await client.callTool({ name: 'list_editors', arguments: {} })) as ReadResult).structuredContent as { editors?: { id: string; pid: number }[] } | undefined;
    const editor = listed?.editors?.find((e) => e.pid === nvim.pid)?.id;
    if (!editor) throw new Error(`the bench's Neovim is not listed: ${JSON.stringify(listed)}`);
    const r = await reviewTimes(client, editor, nvim, reviewBuf, REVIEWS, 2);
    const d = r.direct.p50;
    row(`1,000-line find_and_replace p50: ${through}`, ms(d), ms(d), x(1), '(the direct edit: the baseline)');
    row('  reviewed, accepted: opening (call → editor)', ms(r.open.p50), ms(d), x(r.open.p50 / d), '');
    row('  reviewed, accepted: ZA → the answer', ms(r.accept.p50), ms(d), x(r.accept.p50 / d), '');
    row('  reviewed, accepted: machine time, both', ms(r.machine.p50), ms(d), x(r.machine.p50 / d), `extra ${ms(r.machine.p50 - d)}`);
    row('  the human\'s side: last key → at the front', ms(r.front.p50), ms(d), x(r.front.p50 / d), `≥ ${REVIEW_QUIET_MS} ms by design, + reading`);
  }

  const start = await cliStart();
  row('vimrelay --help', ms(start.help.median), ms(start.floor.median), x(start.help.median / start.floor.median), '< 300 ms');
  row('vimrelay serve --stdio: initialize answered', ms(start.serve.median), ms(start.floor.median), x(start.serve.median / start.floor.median), '< 500 ms');

  process.stdout.write(
    [
      `vimrelay bench: load average ${loadAverage()}; ${CALLS} calls per latency after ${WARMUP} warm-up; ${CONCURRENT_CALLS} calls per throughput`,
      `${'figure'.padEnd(48)} ${'value'.padStart(11)} ${'baseline'.padStart(11)} ${'ratio'.padStart(8)}   goal`,
      ...rows,
      `baselines: direct nvim_buf_get_lines of the same lines (p50 ${ms(floor.p50)}; ${floorRate.toFixed(0)} calls/s with ${CALLERS} callers); node -e 0 for the starts; the same find_and_replace unreviewed for reviews (${REVIEWS} of each)`,
      '',
    ].join('\n'),
  );
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  await nvim.stop();
  await relay.stop();
}
