// What a burst of calls leaves in a long-running agent (agent/calls/quiet-collect.ts): `vimrelay
// serve --stdio` reads a 1,000-line buffer 1,500 times for 32 callers at once, then hears nothing.
// Once the calls have gone quiet it collects, and says so in its log; its resident memory comes back
// to within 20 MiB of what it held before the burst. Left to V8 alone, an idle process sat 100 MiB
// and more above that for as long as the memory reducer happened not to run (30 s and more). The
// relayed agent goes through the same dispatcher; `npm run bench` measures both.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, isolatedEnv } from '../helpers/agent-process.ts';
import { callOk, connectStdio, type StdioConnection } from '../helpers/mcp.ts';
import { startNvim, type NvimFixture } from '../helpers/nvim.ts';
import { waitFor } from '../helpers/wait.ts';

const CALLERS = 32;
const BURST = 1_500;
/** What the agent may keep after the burst, as the issue and the bench hold it. */
const KEPT_MIB = 20;

/** The resident memory of `pid` (VmRSS), in MiB. */
function rssMib(pid: number): number {
  const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kib === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kib) / 1024;
}

/** The least resident memory of `pid` over `ms`, sampled every 100 ms. */
async function leastRss(pid: number, ms: number): Promise<number> {
  let least = Infinity;
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) least = Math.min(least, rssMib(pid));
  return least;
}

const lines = Array.from({ length: 1_000 }, (_, i) => `${String(i + 1).padStart(4, '0')} héllo wörld — 日本語 the quick brown fox`);

describe('serve --stdio after a burst of 32 callers', () => {
  let nvim: NvimFixture;
  let serve: StdioConnection;
  let buffer: number;
  beforeAll(async () => {
    const env = isolatedEnv();
    const sockets = join(String(env.HOME), 'sockets');
    mkdirSync(sockets);
    nvim = await startNvim({ files: { 'burst.txt': lines.join('\n') + '\n' }, open: ['burst.txt'], listen: join(sockets, 'nvim.burst.0') });
    buffer = (await nvim.lua<number>('return vim.fn.bufnr("burst.txt")')) as number;
    serve = await connectStdio(process.execPath, [CLI, 'serve', '--stdio', '--verbose', '--discover-dir', sockets], env);
    await waitFor(async () => ((await callOk(serve.client, 'list_editors')).count === 1 ? true : undefined), 20_000, 'the editor');
  }, 60_000);
  afterAll(async () => {
    await serve?.client.close();
    await nvim?.stop();
  });

  it('collects once the calls go quiet, and keeps at most 20 MiB of it', async () => {
    const pid = serve.pid ?? 0;
    const read = async (): Promise<void> => {
      expect((await callOk(serve.client, 'read_buffer', { buffer })).lines).toEqual(lines);
    };
    for (let i = 0; i < 20; i++) await read();
    const before = await leastRss(pid, 2_000);
    const logged = serve.stderr().length;

    let next = 0;
    await Promise.all(Array.from({ length: CALLERS }, async () => {
      while (next++ < BURST) await read();
    }));

    const said = await waitFor(() => /calls went quiet: collected what they left (\{.*\})/.exec(serve.stderr().slice(logged))?.[1], 30_000, () => `the collection in the log; it wrote: ${serve.stderr().slice(logged).slice(-2_000)}`);
    const { before_mib: heapBefore, after_mib: heapAfter } = JSON.parse(said) as { before_mib: number; after_mib: number };
    expect(heapAfter).toBeLessThan(heapBefore);
    // Node 20's V8 hands the young generation's pages back at its memory reducer's next turn,
    // some seconds after the collection; later ones at once (quiet-collect.ts).
    const after = await waitFor(() => {
      const now = rssMib(pid);
      return now <= before + KEPT_MIB ? now : undefined;
    }, 60_000, () => `resident memory within ${KEPT_MIB} MiB of ${before.toFixed(1)} MiB; it is ${rssMib(pid).toFixed(1)} MiB`);
    expect(after - before).toBeLessThanOrEqual(KEPT_MIB);
  }, 180_000);
});
