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
 * A tool that runs for longer than its window and whose own command then asks the user (an
 * interactive `:s///c` through run_command) is told EDITOR_BLOCKED as well; it finishes once the
 * user answers.
 */
import { EditorBlocked, WAIT_POLL_MS, type EditorWaiting } from '../blocked.ts';
import type { NvimConnection } from './connection.ts';

/** How long Neovim has to start a request before it is asked again (ms); doubled at each late start. */
export const IN_TIME_MS = 1_000;

/** What a request Neovim started too late answers instead. */
export const LATE = Symbol('late');

/**
 * `code`, run only if Neovim starts it by the time (epoch ms, its own clock) passed as its first
 * argument: it gets the arguments after that one; started later, it answers `{vimrelay_late = now}`
 * and runs nothing. `gettimeofday` is luv's since before Neovim 0.7.
 */
function wrapped(code: string): string {
  let found = WRAPPED.get(code);
  if (found === undefined) {
    found = `local not_after = ...
local s, us = (vim.uv or vim.loop).gettimeofday()
local now = s * 1000 + us / 1000
if now > not_after then return { vimrelay_late = now } end
return (function(...)
${code}
end)(select(2, ...))`;
    WRAPPED.set(code, found);
  }
  return found;
}

/** Each chunk wrapped once (the adapter sends a handful of distinct chunks). */
const WRAPPED = new Map<string, string>();

/** Sends Lua chunks that start in time or never, to one Neovim; see the module header. */
export class InTime {
  readonly #connection: NvimConnection;
  readonly #waiting: (signal: AbortSignal) => Promise<EditorWaiting | null>;
  /** Neovim's clock minus this agent's (ms), as the last late answer told. */
  #skew = 0;

  /** `waiting` asks Neovim what it waits for its user to answer now (null: nothing). */
  constructor(connection: NvimConnection, waiting: (signal: AbortSignal) => Promise<EditorWaiting | null>) {
    this.#connection = connection;
    this.#waiting = waiting;
  }

  /**
   * Runs `code` with `args` (`nvim_exec_lua`) if Neovim starts it within `windowMs`: its answer, or
   * LATE when Neovim started it later and ran nothing. Rejects EditorBlocked when the window has
   * passed unanswered and Neovim waits for its user, and with `signal`'s reason when it aborts.
   * One plain timer per request: this is on the path of every call.
   */
  request(code: string, args: readonly unknown[], windowMs: number, signal: AbortSignal): Promise<unknown> {
    const start = Date.now();
    const sent = this.#connection.request('nvim_exec_lua', [wrapped(code), [start + this.#skew + windowMs, ...args]], signal);
    return new Promise((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const settle = (done: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        done();
      };
      // Past the window: asks what Neovim waits for, every WAIT_POLL_MS until the answer comes. A
      // question that fails changes nothing: the answer, or the caller's signal, ends the request.
      const ask = (): void => {
        this.#waiting(signal).then(
          (waiting) => {
            if (settled) return;
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
