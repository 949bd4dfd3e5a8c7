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
 *   - the pre-check each request to Neovim makes (`nvim_get_mode`: is it waiting for its user?),
 *     beside the read it precedes;
 *   - 32 callers at once: calls per second through the relay and `serve --stdio`;
 *   - memory: `serve --stdio`'s peak under 32 callers, an idle agent, and what the relayed agent
 *     and `serve --stdio` keep after 5,750 calls of 32 callers, each beside the same before the
 *     calls, two ways that agree: the least resident memory over 40 idle seconds, as a user's
 *     long-running agent sits (SETTLE_MS), and resident memory and JS heap after a forced full
 *     collection (bench/gc-probe.mjs); and the local workerd behind the relay over the same
 *     relayed runs, beside itself before the first call;
 *   - an idle agent's CPU and instructions with default discovery over a busy temporary directory
 *     (bench/idle.ts), from 10 s after it starts and settled, beside an idle Node process;
 *   - a 100,000-line buffer read whole, page by page, through the relay;
 *   - the 1,000-line read on a Vim, beside the same read on Neovim;
 *   - what an accepted review adds to a 1,000-line buffer's find_and_replace, through the relay
 *     and `serve --stdio`, beside the same edit made directly, and the human's side of it
 *     (bench/review.ts);
 *   - CLI start (bench/cli-start.ts).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
import { busyTempDir, startIdleAgent } from './idle.ts';
import { reviewTimes } from './review.ts';
import { cpuShares, instructions, kept, latency, leastRss, listenerPid, loadAverage, memory, throughput } from './stats.ts';

const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const WARMUP = 30;
const CALLERS = 32;
const CONCURRENT_CALLS = Number(process.env.BENCH_CONCURRENT_CALLS ?? 2_000);
const LEAK_CALLS = 5_750;
const BIG = 100_000;
const REVIEWS = Number(process.env.BENCH_REVIEWS ?? 20);
/**
 * How long a process is left idle before its resident memory is read without a forced collection:
 * the agent collects 5 s after its calls go quiet (agent/calls/quiet-collect.ts), and on Node 20
 * V8 hands the young generation's pages back at its memory reducer's next turn, up to 20 s later.
 * Before the agent collected itself, an idle `serve --stdio` sat 106-122 MiB above its collected
 * size for 20 s in one trial and all of 30 s in another: a window shorter than the reducer's
 * delay read garbage not collected yet, as much as where in V8's cycle it landed.
 */
const SETTLE_MS = 40_000;

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
// The agent and the servers measured report what they keep after a full collection (gc-probe.mjs).
const gcOut = join(relay.dir, 'gc-probe.jsonl');
writeFileSync(gcOut, '');
const env = isolatedEnv({
  VIMRELAY_OWNER_SECRET: relay.ownerSecret,
  NODE_OPTIONS: `--expose-gc --import ${fileURLToPath(new URL('./gc-probe.mjs', import.meta.url))}`,
  VIMRELAY_BENCH_GC_OUT: gcOut,
});
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
  // The agent asks nvim_get_mode before each request that runs anything in Neovim (a call with
  // its paths question: two), to send nothing to a Neovim that waits for its user.
  const modeCheck = await latency(CALLS, WARMUP, () => nvim.client.request('nvim_get_mode', []), (got) => {
    if ((got as { blocking?: unknown }).blocking !== false) throw new Error(`nvim_get_mode answered ${JSON.stringify(got)}`);
  });

  // The relay, with this machine's agent.
  runCli(['enroll', '--relay', relay.url, '--name', 'bench'], env);
  const agent = startAgentProcess(['--relay', relay.url, '--discover-dir', sockets], env);
  stops.push(() => agent.stop());
  await agent.waitFor('connected to relay');
  const relayed = await connectMcp(relay.mcpUrl, await relay.mint({ kind: 'access', name: 'bench' }));
  // The local workerd behind the relay's URL: what it holds once connected, before any call.
  const workerd = listenerPid(Number(new URL(relay.url).port));
  if (workerd === null) throw new Error(`nothing of this user's listens on ${relay.url}`);
  const workerdStart = memory(workerd).rss;
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
  row('the pre-check, 2 nvim_get_mode a call: p50', ms(2 * modeCheck.p50), ms(viaStdio.p50), x((2 * modeCheck.p50) / viaStdio.p50), '(share of the stdio read)');

  const stdioRate = await throughput(CALLERS, CONCURRENT_CALLS, read(stdio.client), checkLines(lines));
  const stdioPeak = memory(stdio.pid ?? 0).peak;
  const relayRate = await throughput(CALLERS, CONCURRENT_CALLS, read(relayed), checkLines(lines));
  const workerdAfterRate = memory(workerd).rss;
  row(`${CALLERS} callers: relayed calls/s`, relayRate.toFixed(0), floorRate.toFixed(0), x(relayRate / floorRate), '≥ 0.25x');
  row(`${CALLERS} callers: serve --stdio calls/s`, stdioRate.toFixed(0), floorRate.toFixed(0), x(stdioRate / floorRate), '≥ 0.6x');
  row(`serve --stdio peak RSS, ${CALLERS} callers`, `${stdioPeak.toFixed(0)} MiB`, '', '', '≤ 250 MiB');
  row('idle agent RSS (connected 15 s, no call yet)', `${agentIdle.toFixed(0)} MiB`, '', '', '≤ 80 MiB');
  row('  (2 s after connecting)', `${agentStarted.toFixed(0)} MiB`, '', '', '');

  // What a burst of 32 callers leaves behind, before and after it: the least resident memory over
  // idle seconds as a long-running agent sits (SETTLE_MS), then after a forced full collection,
  // which must agree with it.
  for (const [label, pid, client] of [
    ['relayed agent', agent.proc.pid ?? 0, relayed],
    ['serve --stdio', stdio.pid ?? 0, stdio.client],
  ] as const) {
    const idleBefore = await leastRss(pid, SETTLE_MS);
    const before = await kept(pid, gcOut);
    await throughput(CALLERS, LEAK_CALLS, read(client), checkLines(lines));
    const idleAfter = await leastRss(pid, SETTLE_MS);
    const after = await kept(pid, gcOut);
    row(`${label}: kept after ${LEAK_CALLS.toLocaleString('en')} calls, ${CALLERS} callers`, `+${(idleAfter - idleBefore).toFixed(1)} MiB`, `${idleBefore.toFixed(0)} MiB`, x(idleAfter / idleBefore), `≤ 20 MiB (least RSS over ${SETTLE_MS / 1000} idle s)`);
    row('  (RSS after a forced full GC)', `+${(after.rss - before.rss).toFixed(1)} MiB`, `${before.rss.toFixed(0)} MiB`, x(after.rss / before.rss), '≤ 20 MiB');
    row('  (JS heap in use after a forced full GC)', `+${(after.heap - before.heap).toFixed(1)} MiB`, `${before.heap.toFixed(0)} MiB`, x(after.heap / before.heap), '');
  }
  // The local workerd (the relay's runtime) across the same relayed runs. Its figure is where a
  // sawtooth stands, not what the relay keeps: the Worker's isolate allocates about 690 KB per
  // relayed 1,000-line read (the agent's message, its parse, the result's text and the response,
  // strings of 60-180 KB that V8 puts straight into its large-object space) and local workerd sets
  // its isolates no heap limit, so V8 lets 300-600 MiB of that garbage build up between full
  // collections; after one, the isolate holds 10-11 MiB (read over V8's inspector, which the relay
  // never opens). Readings of one run ranged 223-1,026 MiB, the same a round ago.
  const workerdAfter = memory(workerd);
  row(`local workerd RSS after ${(CALLS + WARMUP + CONCURRENT_CALLS).toLocaleString('en')} relayed calls`, `${workerdAfterRate.toFixed(0)} MiB`, `${workerdStart.toFixed(0)} MiB`, x(workerdAfterRate / workerdStart), '(baseline: before the first call)');
  row(`  (then after ${LEAK_CALLS.toLocaleString('en')} more; its peak)`, `${workerdAfter.rss.toFixed(0)} MiB`, `${workerdAfterRate.toFixed(0)} MiB`, x(workerdAfter.rss / workerdAfterRate), `peak ${workerdAfter.peak.toFixed(0)} MiB`);

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

  // An idle agent with default discovery over a busy temporary directory (bench/idle.ts), from
  // 10 s after it starts for 15 s, then settled for 30 s (one whole cycle of the watcher, its
  // periodic rescan included), beside an idle Node process over the same windows.
  const busy = busyTempDir();
  const idle = startIdleAgent(relay.url, relay.ownerSecret, busy);
  stops.push(async () => {
    await idle.stop();
    rmSync(busy, { recursive: true, force: true });
  });
  await idle.connected;
  await new Promise((r) => setTimeout(r, Math.max(0, idle.startedAt + 10_000 - Date.now())));
  const idlePids = [idle.agent.pid ?? 0, idle.baseline.pid ?? 0];
  const [[earlyCpu, earlyBase], [earlyIns, earlyBaseIns]] = await Promise.all([cpuShares(idlePids, 15_000), instructions(idlePids, 15_000)]);
  const [[settledCpu, settledBase], [settledIns, settledBaseIns]] = await Promise.all([cpuShares(idlePids, 30_000), instructions(idlePids, 30_000)]);
  const insRatio = (a: number | null | undefined, b: number | null | undefined): string => (a != null && b != null && b > 0 ? x(a / b) : '');
  const mins = (n: number | null | undefined): string => (n == null ? 'n/a' : `${(n / 1e6).toFixed(1)} M`);
  row('idle agent CPU, busy temp dir: 10-25 s after start', `${earlyCpu?.toFixed(2)} %`, `${earlyBase?.toFixed(2)} %`, '', '≤ 0.5 %');
  row('  (instructions, user space)', mins(earlyIns), mins(earlyBaseIns), insRatio(earlyIns, earlyBaseIns), '(baseline: an idle node, one 500 ms timer)');
  row('idle agent CPU, busy temp dir: 30 s settled', `${settledCpu?.toFixed(2)} %`, `${settledBase?.toFixed(2)} %`, '', '≤ 0.5 %');
  row('  (instructions, user space)', mins(settledIns), mins(settledBaseIns), insRatio(settledIns, settledBaseIns), '');

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
