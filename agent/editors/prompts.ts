/**
 * The editor side of "ask" (README "Permissions"), shared by both adapters:
 * the text a prompt shows, the answer an editor sends back, and `EditorPrompts`, which shows one
 * prompt at a time in one editor.
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
import type { AskAnswer, AskRequest } from '../policy/types.ts';
import { EditorGone } from './call.ts';

/** What an adapter does to show and take down one prompt. */
export interface PromptWindow {
  /** Shows the prompt `lines` under `id`; the editor sends its answer for `id` later. */
  open(id: string, lines: readonly string[], signal: AbortSignal): Promise<void>;
  /** Takes the prompt `id` down, if it is still shown, and puts the user's window back. */
  close(id: string, signal: AbortSignal): Promise<void>;
}

/** An answer as an editor sends it (the keys: o, a, A, d, r, q and <Esc>). */
export const WireAskAnswer = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('allow_once') }),
  z.object({ kind: z.literal('allow_always'), scope: z.enum(['editor', 'all']) }),
  z.object({ kind: z.literal('deny'), reason: z.string().max(2_000).optional() }),
]);

/** The keys a prompt answers to, as its last lines list them. */
export const PROMPT_KEYS = [
  '[o] allow once   [a] always, this editor   [A] always, all editors',
  '[d] deny   [r] deny with a reason   [q] or [Esc] deny',
] as const;

/** How long an adapter may take to take a prompt down after the deadline (ms). */
export const PROMPT_CLOSE_TIMEOUT_MS = 2_000;

/** Control characters as ^X, so that no text a client chose can break or fake a prompt line. */
function visible(s: string): string {
  let out = '';
  for (const c of s) {
    const code = c.charCodeAt(0);
    if (code === 0x7f) out += '^?';
    else if (code < 0x20 && c !== '\t') out += `^${String.fromCharCode(code + 64)}`;
    else out += c;
  }
  return out;
}

/** The lines a prompt shows: who asks what where, the keys, then the preview between rules. */
export function promptLines(request: AskRequest): string[] {
  const rule = '─'.repeat(40);
  const lines = [
    `vimrelay: ${visible(request.client)} asks to run ${visible(request.tool)} (${request.klass})`,
    `editor: ${visible(request.editor)}`,
    ...request.paths.slice(0, 3).map((p) => `path: ${visible(p)}`),
    ...(request.paths.length > 3 ? [`… and ${request.paths.length - 3} more paths`] : []),
    ...PROMPT_KEYS,
    rule,
    ...request.preview.split('\n').map(visible),
    rule,
  ];
  return lines;
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
  readonly #pending = new Map<string, { answer: (answer: AskAnswer) => void; gone: (error: EditorGone) => void }>();
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

  /** Takes the editor's answer to prompt `id`; false (ignored) for a malformed one or an unknown id. */
  answer(id: unknown, raw: unknown): boolean {
    const settle = typeof id === 'string' ? this.#pending.get(id) : undefined;
    const answer = WireAskAnswer.safeParse(raw);
    if (!settle || !answer.success) return false;
    settle.answer(answer.data);
    return true;
  }

  /** Rejects every open prompt with EditorGone: the editor has gone (`what` names its connection). */
  abandon(what: string): void {
    for (const settle of this.#pending.values()) settle.gone(new EditorGone(what));
  }

  async #show(request: AskRequest, signal: AbortSignal): Promise<AskAnswer> {
    const id = randomUUID();
    const answered = new Promise<AskAnswer>((answer, gone) => this.#pending.set(id, { answer, gone }));
    // Settled only by an answer or abandon(); a rejection nobody awaits any more is no error.
    answered.catch(() => undefined);
    try {
      try {
        await this.#window.open(id, promptLines(request), signal);
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
