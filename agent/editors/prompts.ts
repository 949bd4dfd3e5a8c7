/**
 * The editor side of "ask" (README "Permissions"), shared by both adapters:
 * the text a prompt shows, the answer an editor sends back, and `EditorPrompts`, which shows one
 * prompt at a time in one editor.
 *
 * A prompt shows the whole of what it approves: every path and the whole preview, which the
 * editors wrap and scroll (lua/ask.lua, vimrelay/ask.vim), taking "allow" only once every row of
 * it has been on screen. Nothing can hide in it (`visible`): control, format and other invisible
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
 * that id (`answer`). When `signal` aborts (the prompt's deadline) before an answer, the adapter
 * closes the prompt and the answer is `timeout`. When the editor goes away first (`abandon`), or
 * the adapter cannot open the prompt, it rejects (EditorGone for an editor that went away): the
 * user was never asked, which is not a denial. Never logs what a prompt shows.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { PREVIEW_LIMITS } from '../policy/preview.ts';
import type { AskAnswer, AskRequest } from '../policy/types.ts';
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
  /** Takes the prompt `id` down, if it is still shown, and puts the user's window back. */
  close(id: string, signal: AbortSignal): Promise<void>;
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
 * Characters a terminal shows as nothing, or as something else: line and paragraph separators,
 * format characters (zero-width, bidi controls, soft hyphen, tags), C1 controls, spaces other than
 * U+0020, private-use and unassigned code points, variation selectors, and the letters and
 * symbols that draw as blanks (Hangul fillers, the Braille blank).
 */
const INVISIBLE = /[\p{Zl}\p{Zp}\p{Cf}\p{Co}\p{Cn}\p{Cs}\u0080-\u009f\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u3164\uffa0\u2800\p{Variation_Selector}]|\u115f|\u1160/u;

/**
 * A run of blanks wider than BLANK_RUN_MAX columns (a tab counts 8) shows as one mark that counts
 * it; as indentation (a run that starts within the first INDENT_OFFSET characters of a line,
 * after a diff's `+`/`-` marker, say), one wider than INDENT_MAX.
 */
const BLANK_RUN_MAX = 16;
const INDENT_MAX = 48;
const INDENT_OFFSET = 2;
const BLANK_RUNS = /[ \t]{3,}/g;

/** The mark a run of blanks at `offset` shows as (`⟨4,000 spaces⟩`, `⟨12 tabs⟩`, `⟨40 blanks (spaces and tabs)⟩`), or the run itself. */
function blankRun(run: string, offset: number): string {
  const tabs = run.split('\t').length - 1;
  if (run.length + 7 * tabs <= (offset <= INDENT_OFFSET ? INDENT_MAX : BLANK_RUN_MAX)) return run;
  const count = run.length.toLocaleString('en-US');
  if (tabs === 0) return `⟨${count} spaces⟩`;
  if (tabs === run.length) return `⟨${count} tabs⟩`;
  return `⟨${count} blanks (spaces and tabs)⟩`;
}

/**
 * `s` as a prompt shows it, with nothing hidden in it: C0 controls as ^X (DEL as ^?), other
 * invisible characters (INVISIBLE) as ⟨U+XXXX⟩, and a wide run of spaces and tabs (BLANK_RUN_MAX)
 * as one counting mark.
 */
export function visible(s: string): string {
  let out = '';
  for (const c of s) {
    const code = c.codePointAt(0) ?? 0;
    if (code === 0x7f) out += '^?';
    else if (code < 0x20 && c !== '\t') out += `^${String.fromCharCode(code + 64)}`;
    else if (INVISIBLE.test(c)) out += `⟨U+${code.toString(16).toUpperCase().padStart(4, '0')}⟩`;
    else out += c;
  }
  return out.replace(BLANK_RUNS, blankRun);
}

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
      // The deadline passed: take the prompt down (it may have opened after all), answer timeout.
      await this.#window.close(id, AbortSignal.timeout(PROMPT_CLOSE_TIMEOUT_MS)).catch(() => undefined);
      return { kind: 'timeout' };
    } finally {
      this.#pending.delete(id);
    }
  }
}
