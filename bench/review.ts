/**
 * What an accepted review adds to an edit, for bench/main.ts (README "Reviews"): the same
 * find_and_replace of a 1,000-line buffer through one client, made directly and with `review: true`,
 * the user's accept typed as keys (ZA, nvim_input) the moment the review is at the front. A
 * reviewed edit is timed in parts, read from the editor as it goes (the reviews review.lua holds):
 *   - opening: the call sent → the review held by the editor (the edit worked out on a copy of the
 *     buffer, the proposal sent to the editor);
 *   - to the front: the user's last key → the review's tab at the front. The human's side: a review
 *     waits until the user has stopped typing for REVIEW_QUIET_MS (then checked every 100 ms),
 *     and what they take to read it comes on top;
 *   - the accept: ZA typed → the call's answer (the merge with the buffer as it is, the
 *     tick-guarded apply, the tab closed, the answer back through the chain).
 * The machine's time of an accepted review is opening + accept, beside the direct edit's. Every
 * edit's result is checked (the text it made, `review.decision` accepted); a wrong one throws.
 */
import { performance } from 'node:perf_hooks';
import type { NvimFixture } from '../test/helpers/nvim.ts';
import { percentiles, type Latency } from './stats.ts';

export interface ReviewTimes {
  direct: Latency;
  open: Latency;
  front: Latency;
  accept: Latency;
  machine: Latency;
}

type Caller = { callTool(request: { name: string; arguments: Record<string, unknown> }): Promise<unknown> };
interface EditResult {
  isError?: boolean;
  structuredContent?: { changedtick?: number; review?: { decision?: string } };
}

/**
 * Watches the reviews the Neovim holds (how many, whether one is at the front) with a 1 ms timer in
 * the editor, which notifies `channel` of each change: the times are taken as things happen there,
 * not at the pace of polling from here.
 */
const WATCH = `
local chan = ...
local last = ''
local timer = vim.loop.new_timer()
_G.__vimrelay_bench_watch = timer
timer:start(0, 1, vim.schedule_wrap(function()
  local n, shown = 0, false
  for _, r in pairs(_G.__vimrelay and _G.__vimrelay.reviews or {}) do
    n = n + 1
    shown = shown or r.shown == true
  end
  local now = n .. tostring(shown)
  if now ~= last then
    last = now
    vim.rpcnotify(chan, 'vimrelay_bench_review', n, shown)
  end
end))`;

/** The review state the watcher last told of, and when it came. */
interface Held {
  count: number;
  shown: boolean;
  at: number;
}

/**
 * `samples` edits of buffer `buf` of `nvim` (`editor` to the client) through `client`, direct and
 * reviewed, after `warmup` of each.
 */
export async function reviewTimes(client: Caller, editor: string, nvim: NvimFixture, buf: number, samples: number, warmup: number): Promise<ReviewTimes> {
  let held: Held = { count: 0, shown: false, at: performance.now() };
  let wake = (): void => {};
  nvim.client.on('notification', (method: string, args: unknown[]) => {
    if (method !== 'vimrelay_bench_review') return;
    held = { count: Number(args[0]), shown: args[1] === true, at: performance.now() };
    wake();
  });
  /** When the state first holds `test` (now, or as the watcher tells of it). */
  const when = (test: (h: Held) => boolean): Promise<number> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the review never reached the state awaited (last: ${JSON.stringify(held)})`)), 30_000);
      const check = (): void => {
        if (!test(held)) return;
        clearTimeout(timer);
        wake = () => {};
        resolve(held.at);
      };
      wake = check;
      check();
    });
  await nvim.lua(WATCH, await nvim.client.channelId);
  const firstLine = async (): Promise<string> => (await nvim.lua<string[]>('return vim.api.nvim_buf_get_lines(..., 0, 1, true)', buf))[0] ?? '';
  let tick = await nvim.lua<number>('return vim.api.nvim_buf_get_changedtick(...)', buf);
  let flip = false;
  /** find_and_replace of the first line's head, one way then back, with `during` run while it waits; checked. */
  const edit = async (more: Record<string, unknown>, during?: () => Promise<void>): Promise<void> => {
    const [from, to] = flip ? ['0001 HELLO', '0001 héllo'] : ['0001 héllo', '0001 HELLO'];
    flip = !flip;
    const call = client.callTool({ name: 'find_and_replace', arguments: { editor, buffer: buf, old_text: from, new_text: to, expected_changedtick: tick, ...more } }) as Promise<EditResult>;
    await during?.();
    const result = await call;
    const reviewed = 'review' in more;
    if (result.isError || typeof result.structuredContent?.changedtick !== 'number' || (reviewed && result.structuredContent.review?.decision !== 'accepted') || !(await firstLine()).startsWith(to)) {
      throw new Error(`an edit went wrong: ${JSON.stringify(result).slice(0, 300)}`);
    }
    tick = result.structuredContent.changedtick;
  };

  try {
    const direct: number[] = [];
    for (let i = 0; i < warmup + samples; i++) {
      const t0 = performance.now();
      await edit({});
      if (i >= warmup) direct.push(performance.now() - t0);
    }

    const open: number[] = [];
    const front: number[] = [];
    const accept: number[] = [];
    const machine: number[] = [];
    let lastKey = performance.now();
    for (let i = 0; i < warmup + samples; i++) {
      const t0 = performance.now();
      let opened = 0;
      let shown = 0;
      let typed = 0;
      await edit({ review: true }, async () => {
        opened = await when((h) => h.count === 1);
        shown = await when((h) => h.shown);
        typed = performance.now();
        await nvim.client.input('ZA');
      });
      const answered = performance.now();
      if (i >= warmup) {
        open.push(opened - t0);
        front.push(shown - lastKey);
        accept.push(answered - typed);
        machine.push(opened - t0 + (answered - typed));
      }
      lastKey = typed;
      await when((h) => h.count === 0);
    }
    return { direct: percentiles(direct), open: percentiles(open), front: percentiles(front), accept: percentiles(accept), machine: percentiles(machine) };
  } finally {
    await nvim.lua('_G.__vimrelay_bench_watch:stop(); _G.__vimrelay_bench_watch:close()');
  }
}
