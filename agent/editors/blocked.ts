/**
 * An editor that waits for its user: at the "Press ENTER" prompt, at "-- More --", at a question
 * (the swap-file question E325, a confirm() dialog) or, in Neovim, in the middle of a command the
 * user is typing. Neovim then answers no request but the few it serves at once (`nvim_get_mode`,
 * `:help api-fast`): every other one waits until the user answers, and would run then, behind the
 * back of a caller told TIMEOUT long before. Vim reads its channel at these prompts, but a call
 * there would run in the middle of the user's command (a buffer half loaded at the swap question,
 * a listing paused at "-- More --"). So each adapter asks first (Neovim: `nvim_get_mode`) or checks
 * inside its one call (Vim: `mode(1)`), sends nothing to an editor that waits, and the call
 * answers EDITOR_BLOCKED at once, saying what for (PROTOCOL.md "Error codes").
 *
 * `WaitWatch` keeps what an editor is known to wait for, for list_editors (`waiting_for`): set
 * when a check finds it waiting, polled cheaply (one question at a time) while it waits, and
 * cleared once it can be asked again. Owns no connection: the adapter gives it its question.
 */
import { fail, type EditorWaiting, type ToolOutcome } from '../../protocol/index.ts';

export type { EditorWaiting } from '../../protocol/index.ts';

/** The editor waits for its user (`waitingFor`); nothing was sent to it. */
export class EditorBlocked extends Error {
  override name = 'EditorBlocked';
  constructor(readonly waitingFor: EditorWaiting) {
    super(`the editor waits for its user (${waitingFor})`);
  }
}

/** What the user sees and must do, per wait. */
const WHAT: { readonly [W in EditorWaiting]: string } = {
  'hit-enter': 'shows "Press ENTER or type command to continue" and answers nothing until its user presses Enter',
  more: 'shows "-- More --" (output longer than its screen) and answers nothing until its user pages through it or quits it with q',
  confirm: 'asks its user a question (such as the swap-file question E325 of a file open in another editor, or a confirm() dialog) and answers nothing until they reply',
  keys: 'waits for the rest of a command its user is typing (a count, an operator, CTRL-W) and answers nothing until they finish or cancel it',
};

/** The outcome of a call that found its editor waiting for its user. */
export function blockedOutcome(waitingFor: EditorWaiting): ToolOutcome {
  return fail('EDITOR_BLOCKED', `The editor ${WHAT[waitingFor]}; nothing was sent to it.`, { waiting_for: waitingFor });
}

/**
 * What an editor that waits is waiting for, from its mode (`mode(1)`, `nvim_get_mode().mode`):
 * `r` hit-enter, `rm` more, `r?` a question (`:help mode()`); any other mode while Neovim says it
 * blocks is the rest of a command being typed.
 */
export function waitingFor(mode: string): EditorWaiting {
  if (mode === 'r') return 'hit-enter';
  if (mode === 'rm') return 'more';
  if (mode === 'r?') return 'confirm';
  return 'keys';
}

/** How often a waiting editor is asked again whether it still waits (ms). */
export const WAIT_POLL_MS = 500;

/**
 * What one editor waits for, as last found: `set` with what a check found, `onChange` told of
 * every change. While it waits, `probe` asks again every `pollMs` (never two at once: a question
 * the editor does not answer either is waited for), until it answers null; `probe` may itself
 * call `set`, and whatever it throws leaves the state as it was. `close` stops asking.
 */
export class WaitWatch {
  readonly #probe: (signal: AbortSignal) => Promise<EditorWaiting | null>;
  readonly #onChange: () => void;
  readonly #pollMs: number;
  readonly #stop = new AbortController();
  #current: EditorWaiting | null = null;
  #timer: NodeJS.Timeout | undefined;
  #asking = false;

  constructor(probe: (signal: AbortSignal) => Promise<EditorWaiting | null>, onChange: () => void, pollMs = WAIT_POLL_MS) {
    this.#probe = probe;
    this.#onChange = onChange;
    this.#pollMs = pollMs;
  }

  get current(): EditorWaiting | null {
    return this.#current;
  }

  /** Records what a check found; starts polling when the editor waits. */
  set(waiting: EditorWaiting | null): void {
    if (this.#stop.signal.aborted) return;
    const changed = waiting !== this.#current;
    this.#current = waiting;
    if (waiting !== null) this.#schedule();
    if (changed) this.#onChange();
  }

  close(): void {
    this.#stop.abort();
    clearTimeout(this.#timer);
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#asking) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#ask();
    }, this.#pollMs);
    // Polling never keeps the agent alive by itself.
    this.#timer.unref();
  }

  async #ask(): Promise<void> {
    if (this.#current === null || this.#stop.signal.aborted) return;
    this.#asking = true;
    try {
      this.set(await this.#probe(this.#stop.signal));
    } catch {
      // The editor went away, or the question failed: its state stays until the next check.
    } finally {
      this.#asking = false;
    }
    if (this.#current !== null) this.#schedule();
  }
}
