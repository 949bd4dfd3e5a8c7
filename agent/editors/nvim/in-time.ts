/**
 * Requests that run Lua in a Neovim only if Neovim starts them in time, and otherwise never.
 *
 * The check before each request (editor.ts `#askable`) leaves a gap: a user who types a count or
 * an operator after Neovim answered `nvim_get_mode` and before the request arrived holds the
 * request in Neovim's queue until they finish the command (`:help api-fast`). It would then run
 * behind the back of a caller told long before. So each request carries the moment, on Neovim's
 * clock, after which it must not start, and the Lua wrapped around it (`wrapped`) checks that
 * before anything else runs:
 * - Once that moment has passed with no answer, the agent asks `nvim_get_mode`, which Neovim answers
 *   even then, every WAIT_POLL_MS. If the editor waits for its user, the call ends EditorBlocked at
 *   once: the request can no longer start, and its late answer is dropped (connection.ts).
 * - A request that Neovim started late because it was busy with other work answers `LATE`. It is
 *   sent again with a window twice as long, so a busy editor never starves a call.
 * - The clocks of the agent and Neovim are both the system's wall clock. A Neovim on another
 *   machine (a TCP address) may be skewed: each late answer carries Neovim's time, and the
 *   difference is kept for the next window.
 * - A request that starts in time says so at once, before anything else runs: the notification
 *   `vimrelay_started` with its number, on the agent's own channel. One whose own work then asks
 *   the user (an interactive `:s///c` through run_command, a plugin's question) has run, so it
 *   is never told EDITOR_BLOCKED ("nothing was sent"): it is waited for like any other, until
 *   its answer (run_command's watchdog ends its prompt at timeout_ms) or the caller's signal.
 *   Neovim writes the notification before the prompt, so the agent reads it before the answer of
 *   any later `nvim_get_mode`.
 */
import { EditorBlocked, WAIT_POLL_MS, type EditorWaiting } from '../blocked.ts';
import type { NvimConnection } from './connection.ts';

/** How long Neovim has to start a request before it is asked again (ms); doubled at each late start. */
export const IN_TIME_MS = 1_000;

/** What a request Neovim started too late answers instead. */
export const LATE = Symbol('late');

/**
 * `code`, run only if Neovim starts it by the time (epoch ms, its own clock) passed as its first
 * argument, after notifying the channel its second names that request number (its third) started:
 * it gets the arguments after those; started later, it answers `{vimrelay_late = now}` and runs
 * nothing. `gettimeofday` is luv's since before Neovim 0.7.
 */
function wrapped(code: string): string {
  let found = WRAPPED.get(code);
  if (found === undefined) {
    found = `local not_after, chan, seq = ...
local s, us = (vim.uv or vim.loop).gettimeofday()
local now = s * 1000 + us / 1000
if now > not_after then return { vimrelay_late = now } end
pcall(vim.rpcnotify, chan, 'vimrelay_started', seq)
return (function(...)
${code}
end)(select(4, ...))`;
    WRAPPED.set(code, found);
  }
  return found;
}

/** Each chunk wrapped once (the adapter sends a handful of distinct chunks). */
const WRAPPED = new Map<string, string>();

/** Sends Lua chunks that start in time or never, to one Neovim; see the module header. */
export class InTime {
  readonly #connection: NvimConnection;
  readonly #channel: number;
  readonly #waiting: (signal: AbortSignal) => Promise<EditorWaiting | null>;
  /** Neovim's clock minus this agent's (ms), as the last late answer told. */
  #skew = 0;
  #seq = 0;
  /** What to call when Neovim says the request of that number started, while it is unanswered. */
  readonly #starting = new Map<number, () => void>();

  /**
   * `channel` is the agent's channel on `connection` (`nvim_get_api_info`), where Neovim says a
   * request started; `waiting` asks Neovim what it waits for its user to answer now (null: nothing).
   */
  constructor(connection: NvimConnection, channel: number, waiting: (signal: AbortSignal) => Promise<EditorWaiting | null>) {
    this.#connection = connection;
    this.#channel = channel;
    this.#waiting = waiting;
  }

  /** The notification `vimrelay_started` with `seq`: that request started in time. */
  started(seq: unknown): void {
    if (typeof seq === 'number') this.#starting.get(seq)?.();
  }

  /**
   * Runs `code` with `args` (`nvim_exec_lua`) if Neovim starts it within `windowMs`: its answer, or
   * LATE when Neovim started it later and ran nothing. Rejects EditorBlocked when the window has
   * passed unanswered, the request has not started and Neovim waits for its user, and with
   * `signal`'s reason when it aborts. One plain timer per request: this is on the path of every call.
   */
  request(code: string, args: readonly unknown[], windowMs: number, signal: AbortSignal): Promise<unknown> {
    const start = Date.now();
    const seq = ++this.#seq;
    let started = false;
    this.#starting.set(seq, () => (started = true));
    const sent = this.#connection.request('nvim_exec_lua', [wrapped(code), [start + this.#skew + windowMs, this.#channel, seq, ...args]], signal);
    return new Promise((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const settle = (done: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.#starting.delete(seq);
        done();
      };
      // Past the window: asks what Neovim waits for, every WAIT_POLL_MS until the answer comes. A
      // question that fails changes nothing: the answer, or the caller's signal, ends the request.
      // Once it started, whatever Neovim waits for is the request's own (see the module header).
      const ask = (): void => {
        if (started) return;
        this.#waiting(signal).then(
          (waiting) => {
            if (settled || started) return;
            if (waiting !== null) settle(() => reject(new EditorBlocked(waiting)));
            else timer = setTimeout(ask, WAIT_POLL_MS);
          },
          () => undefined,
        );
      };
      timer = setTimeout(ask, windowMs);
      sent.then(
        (answer) =>
          settle(() => {
            if (!isLate(answer)) return resolve(answer);
            this.#skew = answer.vimrelay_late - Date.now();
            resolve(LATE);
          }),
        (error: unknown) => settle(() => reject(error)),
      );
    });
  }
}

function isLate(answer: unknown): answer is { vimrelay_late: number } {
  return typeof answer === 'object' && answer !== null && 'vimrelay_late' in answer && typeof answer.vimrelay_late === 'number';
}
