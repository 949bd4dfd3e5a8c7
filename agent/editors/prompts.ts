/**
 * The editor side of "ask" (README "Permissions"), shared by both adapters:
 * the text a prompt shows, the answer an editor sends back, and `EditorPrompts`, which shows one
 * prompt at a time in one editor.
 *
 * A prompt shows the whole of what it approves: every path and the whole preview, which the
 * editors wrap and scroll (lua/ask.lua, vimrelay/ask.vim), taking "allow" only once every row of
 * it has been on screen. Nothing can hide in it (protocol/visible.ts): control, format and other invisible
 * characters show as marks (^X, ⟨U+202E⟩), and a long run of blanks as one mark that counts it
 * (⟨4,000 spaces⟩), so that no stretch of blank rows can keep text away from the user's eyes. A
 * preview too long to show whole (policy/preview.ts) is not shown: the prompt says so and offers
 * only deny, and the agent takes no other answer to it. An editor's answer is one of three exact
 * shapes; anything else (an "allow always, all editors" from an older plugin or a hostile
 * editor) is ignored: a prompt's answer never widens the policy beyond its editor.
 *
 * An answer is the user's own act (the way Firefox keeps its permission buttons inert for a
 * moment, `security.dialog_enable_delay`): a prompt shows at once but takes keys only once the
 * user has stopped typing (PROMPT_TIMING.quietMs without a key, counted from when it shows),
 * never in Insert mode, and its keys answer only PROMPT_TIMING.armMs after that (allow also
 * armMs after the view last moved). Allow is a control key (Ctrl-G once, Ctrl-T always) that
 * neither text nor a Normal-mode command is typed with.
 *
 * Contract: `EditorPrompts.ask` waits for the editor's earlier prompts to be answered (a second ask
 * on the same editor waits its turn; there is nothing global, so other editors never wait), then
 * has the adapter open a prompt under a fresh id and resolves with the answer the editor sends for
 * that id (`answer`). When `signal` aborts (the prompt's deadline, or another surface answered
 * first: decisions/elsewhere.ts DecidedElsewhere, whose notice the editor then shows) before an
 * answer, the adapter closes the prompt and the answer is `timeout`. When the editor goes away first (`abandon`), or
 * the adapter cannot open the prompt, it rejects (EditorGone for an editor that went away): the
 * user was never asked, which is not a denial. Never logs what a prompt shows.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { visible } from '../../protocol/visible.ts';
import { PREVIEW_LIMITS } from '../policy/preview.ts';
import type { AskAnswer, AskRequest } from '../policy/types.ts';
import { DecidedElsewhere } from '../decisions/elsewhere.ts';
import { EditorGone } from './call.ts';

/** How a prompt is shown: `denyOnly` when its keys offer only deny (the preview is not shown whole). */
export interface PromptOptions {
  denyOnly: boolean;
}

/** When a prompt takes keys and when they answer, the same in both editors (see the module header). */
export const PROMPT_TIMING = {
  /** A prompt takes keys only once no key has been typed for this long (ms), counted from when it shows. */
  quietMs: 1_000,
  /** Its keys answer only this long (ms) after it took them; allow only this long after its view last moved. */
  armMs: 1_000,
} as const;

/** The options an editor's prompt code takes (lua/ask.lua, vimrelay/ask.vim), from `options`. */
export function editorPromptOptions(options: PromptOptions): { deny_only: boolean; quiet_ms: number; arm_ms: number } {
  return { deny_only: options.denyOnly, quiet_ms: PROMPT_TIMING.quietMs, arm_ms: PROMPT_TIMING.armMs };
}

/** What an adapter does to show and take down one prompt. */
export interface PromptWindow {
  /** Shows the prompt `lines` under `id`; the editor sends its answer for `id` later. */
  open(id: string, lines: readonly string[], options: PromptOptions, signal: AbortSignal): Promise<void>;
  /**
   * Takes the prompt `id` down, if it is still shown, and puts the user's window back; shows
   * `notice` ('' for none) as a one-line message, shown or not (its answer may be on its way).
   */
  close(id: string, notice: string, signal: AbortSignal): Promise<void>;
}

/** An answer as an editor sends it (the keys: Ctrl-G, Ctrl-T, d, r, q and <Esc>), in exactly one of these shapes. */
export const WireAskAnswer = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('allow_once') }),
  z.strictObject({ kind: z.literal('allow_always') }),
  z.strictObject({ kind: z.literal('deny'), reason: z.string().max(2_000).optional() }),
]);

/** The deny keys, offered by every prompt. */
export const DENY_KEYS = '[d] deny   [r] deny with a reason   [q] or [Esc] deny';

/** How to scroll a prompt that does not fit, and when allow answers. */
export const SCROLL_KEYS = 'scroll: j k Ctrl-D Ctrl-U G gg   allow answers once every row has been shown, a moment after the last scroll';

/**
 * The key lines of a prompt: allow once, and "allow always in this editor" — for the name the
 * user chose for it, else only until it goes away (an unnamed editor has no identity a rule can
 * keep) — then deny; only the deny keys when the preview is not shown whole.
 */
export function promptKeys(request: Pick<AskRequest, 'chosenName' | 'preview'>): string[] {
  if (request.preview === null) return [DENY_KEYS];
  const always =
    request.chosenName === null
      ? '[Ctrl-T] allow in this editor until it disconnects (name it with :VimRelayName or g:vimrelay_name to allow always)'
      : `[Ctrl-T] allow always in the editor named "${visible(request.chosenName)}"`;
  return [`[Ctrl-G] allow once   ${always}`, DENY_KEYS, SCROLL_KEYS];
}

/** How long an adapter may take to take a prompt down after the deadline (ms). */
export const PROMPT_CLOSE_TIMEOUT_MS = 2_000;

/**
 * The lines a prompt shows: who asks what where, every path, the keys, then the whole preview
 * between rules (or why it is not shown), and the keys again below it, for a prompt scrolled to its end.
 */
export function promptLines(request: AskRequest): string[] {
  const rule = '─'.repeat(40);
  const keys = promptKeys(request);
  const body =
    request.preview === null
      ? [
          `This call's preview has ${request.previewChars.toLocaleString('en-US')} characters, more than the ${PREVIEW_LIMITS.maxChars.toLocaleString('en-US')} a prompt shows whole,`,
          'so it cannot be shown, and it can only be denied.',
        ]
      : request.preview.split('\n').map(visible);
  return [
    `vimrelay: ${visible(request.client)} asks to run ${visible(request.tool)} (${request.klass})`,
    `editor: ${visible(request.editor)}`,
    ...request.paths.map((p) => `path: ${visible(p)}`),
    ...keys,
    rule,
    ...body,
    rule,
    // Below a long preview, the allow and deny keys again (not the scrolling hint).
    ...(request.preview === null ? [] : keys.slice(0, -1)),
  ];
}

/** Resolves true at `signal`'s abort, or false when `until` settles first. */
function abortedBefore(until: Promise<unknown>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = (): void => resolve(true);
    signal.addEventListener('abort', onAbort, { once: true });
    void until.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve(false);
      },
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve(false);
      },
    );
  });
}

/** One editor's prompts, one at a time; see the module header. */
export class EditorPrompts {
  readonly #window: PromptWindow;
  /** Open prompts: how each is answered or given up, and whether it takes only deny. */
  readonly #pending = new Map<string, { answer: (answer: AskAnswer) => void; gone: (error: EditorGone) => void; denyOnly: boolean }>();
  /** Settles when every prompt asked so far is done. */
  #tail: Promise<void> = Promise.resolve();

  constructor(window: PromptWindow) {
    this.#window = window;
  }

  /** Shows `request` once the earlier prompts are done, and resolves with the user's answer. */
  async ask(request: AskRequest, signal: AbortSignal): Promise<AskAnswer> {
    const turn = this.#tail;
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    this.#tail = turn.then(() => mine);
    try {
      if (await abortedBefore(turn, signal)) return { kind: 'timeout' };
      return await this.#show(request, signal);
    } finally {
      done();
    }
  }

  /**
   * Takes the editor's answer to prompt `id`; false (ignored) for a malformed one, an unknown id,
   * or an allow to a prompt that offered only deny.
   */
  answer(id: unknown, raw: unknown): boolean {
    const pending = typeof id === 'string' ? this.#pending.get(id) : undefined;
    const answer = WireAskAnswer.safeParse(raw);
    if (!pending || !answer.success || (pending.denyOnly && answer.data.kind !== 'deny')) return false;
    pending.answer(answer.data);
    return true;
  }

  /** Rejects every open prompt with EditorGone: the editor has gone (`what` names its connection). */
  abandon(what: string): void {
    for (const settle of this.#pending.values()) settle.gone(new EditorGone(what));
  }

  async #show(request: AskRequest, signal: AbortSignal): Promise<AskAnswer> {
    const id = randomUUID();
    const denyOnly = request.preview === null;
    const answered = new Promise<AskAnswer>((answer, gone) => this.#pending.set(id, { answer, gone, denyOnly }));
    // Settled only by an answer or abandon(); a rejection nobody awaits any more is no error.
    answered.catch(() => undefined);
    try {
      try {
        await this.#window.open(id, promptLines(request), { denyOnly }, signal);
        if (!(await abortedBefore(answered, signal))) return await answered;
      } catch (error) {
        if (!signal.aborted) throw error;
      }
      // The deadline passed, or another surface answered: take the prompt down (it may have
      // opened after all), saying who answered, and answer timeout.
      const notice = signal.reason instanceof DecidedElsewhere ? signal.reason.notice : '';
      await this.#window.close(id, notice, AbortSignal.timeout(PROMPT_CLOSE_TIMEOUT_MS)).catch(() => undefined);
      return { kind: 'timeout' };
    } finally {
      this.#pending.delete(id);
    }
  }
}
