// What a burst of calls leaves in a long-running agent (agent/calls/quiet-collect.ts): `vimrelay
// serve --stdio` reads a 1,000-line buffer for 32 callers at once, 400 times then 800 times, and
// hears nothing after each burst. Once the calls have gone quiet it collects, and says so in its
// log; after the second burst's collection its resident memory is within 20 MiB of what it was
// after the first's (where the runtime hands pages back at once: Node 22 and later). Left to V8 alone, an idle process sat 100 MiB and more above that for as long
// as the memory reducer happened not to run (30 s and more). The relayed agent goes through the
// same dispatcher; `npm run bench` measures both, over idle seconds.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, isolatedEnv } from '../helpers/agent-process.ts';
import { callOk, connectStdio, type StdioConnection } from '../helpers/mcp.ts';
import { startNvim, type NvimFixture } from '../helpers/nvim.ts';
import { waitFor } from '../helpers/wait.ts';

const CALLERS = 32;
const BURST = 800;
/** What the agent may keep after the burst, as the issue and the bench hold it. */
const KEPT_MIB = 20;

/** The resident memory of `pid` (VmRSS), in MiB. */
function rssMib(pid: number): number {
  const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kib === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kib) / 1024;
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

  // Resident memory right after each burst's collection, before V8's memory reducer could take more.
  let before = 0;
  let after = 0;

  it('collects once the calls go quiet, after each burst', async () => {
    const pid = serve.pid ?? 0;
    const read = async (): Promise<void> => {
      expect((await callOk(serve.client, 'read_buffer', { buffer })).lines).toEqual(lines);
    };
    const burst = async (calls: number): Promise<void> => {
      let next = 0;
      await Promise.all(Array.from({ length: CALLERS }, async () => {
        while (next++ < calls) await read();
      }));
    };
    /** The collection the agent logs once the calls went quiet after stderr's `from`th character. */
    const collected = (from: number): Promise<{ before_mib: number; after_mib: number }> =>
      waitFor(() => {
        const said = /calls went quiet: collected what they left (\{.*\})/.exec(serve.stderr().slice(from))?.[1];
        return said === undefined ? undefined : (JSON.parse(said) as { before_mib: number; after_mib: number });
      }, 30_000, () => `the collection in the log; it wrote: ${serve.stderr().slice(from).slice(-2_000)}`);

    // A first burst and its collection: the agent as it stands between bursts. The agent collects
    // only when its heap grew by 16 MiB or more (quiet-collect.ts GROWTH_BYTES): 200 reads grew
    // it by 15.7 MiB in one run, so the first burst is 400.
    let logged = serve.stderr().length;
    await burst(BURST / 2);
    await collected(logged);
    before = rssMib(pid);

    logged = serve.stderr().length;
    await burst(BURST);
    const { before_mib: held, after_mib: holds } = await collected(logged);
    expect(holds).toBeLessThanOrEqual(held);
    after = rssMib(pid);
  }, 120_000);

  // V8 11 (Node 20) ignores the collection's "last-resort" flavor: it hands the young generation's
  // pages back at its memory reducer's next turn, seconds later and later still on a loaded
  // machine, which this test does not wait for (`npm run bench` reads it over 40 idle s).
  it.skipIf(Number(process.versions.v8.split('.')[0]) < 12)('keeps at most 20 MiB from one burst to the next', () => {
    expect(before, 'the first test ran').toBeGreaterThan(0);
    expect(after - before, `resident memory ${before.toFixed(1)} MiB after the first burst's collection, ${after.toFixed(1)} MiB after the second's`).toBeLessThanOrEqual(KEPT_MIB);
  });
});
