/**
 * The editor side of reviews (README "Reviews"), shared by both adapters: what a review shows,
 * the answer an editor sends back, and `EditorReviews`, which keeps one editor's open reviews.
 *
 * Contract: `EditorReviews.open` has the adapter open review `id` in the editor (lua/review.lua,
 * vimrelay/review.vim: a tab of its own once the user stops typing) and resolves with its handle
 * once the editor holds it: `answer` resolves with the user's decision (the proposal's lines as they
 * accepted them, or a reject with its reason; closing the tab is a reject with reason "closed"),
 * or rejects with EditorGone when the editor goes away first; `close` takes it down with a
 * one-line message, `expire` says in it that it expired. Unlike a prompt, a review outlives the
 * call that opened it (it may be decided after the call answered "pending"), so no call's signal
 * closes it: its owner (reviews/book.ts) does. An editor's answer is one of two exact shapes, for an
 * id it holds, once; anything else is ignored.
 */
import { z } from 'zod';
import { EditorGone } from './call.ts';

/** What a review shows: the real buffer, the header's lines, the proposal's lines. */
export interface ReviewSpec {
  buf: number;
  header: readonly string[];
  proposed: readonly string[];
}

/** The user's decision on a review, as the editor sends it. */
export const ReviewAnswer = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('accept'), lines: z.array(z.string()) }),
  z.strictObject({ kind: z.literal('reject'), reason: z.string().max(2_000).optional() }),
]);
export type ReviewAnswer = z.infer<typeof ReviewAnswer>;

/** What an adapter does to show and take down a review. */
export interface ReviewWindow {
  /** Opens review `id` (shown when the user stops typing); `quiet_ms` is how long they must have stopped. */
  open(id: string, spec: ReviewSpec & { quiet_ms: number }, signal: AbortSignal): Promise<void>;
  /** Takes review `id` down, showing `message` ('' for none). */
  close(id: string, message: string, signal: AbortSignal): Promise<void>;
  /** Says in review `id` that it expired. */
  expire(id: string, signal: AbortSignal): Promise<void>;
}

/** An open review. */
export interface OpenReview {
  readonly answer: Promise<ReviewAnswer>;
  close(message: string): Promise<void>;
  expire(): Promise<void>;
}

/** How long an adapter may take to take a review down or mark it (ms). */
const WINDOW_MS = 2_000;

/** How long the user must have stopped typing before a review comes to the front (ms). */
export const REVIEW_QUIET_MS = 1_000;

/** One editor's open reviews; see the module header. */
export class EditorReviews {
  readonly #window: ReviewWindow;
  readonly #open = new Map<string, { settle: (answer: ReviewAnswer) => void; gone: (error: EditorGone) => void }>();
  #gone: EditorGone | null = null;

  constructor(window: ReviewWindow) {
    this.#window = window;
  }

  /** Opens review `id`; see the module header. Rejects when the editor cannot open it. */
  async open(id: string, spec: ReviewSpec, signal: AbortSignal): Promise<OpenReview> {
    if (this.#gone) throw this.#gone;
    const answer = new Promise<ReviewAnswer>((settle, gone) => this.#open.set(id, { settle, gone }));
    // Nobody may be waiting for it when the editor goes away.
    answer.catch(() => undefined);
    try {
      await this.#window.open(id, { ...spec, quiet_ms: REVIEW_QUIET_MS }, signal);
    } catch (error) {
      this.#open.delete(id);
      throw error;
    }
    return {
      answer,
      close: async (message) => {
        this.#open.delete(id);
        if (!this.#gone) await this.#window.close(id, message, AbortSignal.timeout(WINDOW_MS)).catch(() => undefined);
      },
      expire: async () => {
        this.#open.delete(id);
        if (!this.#gone) await this.#window.expire(id, AbortSignal.timeout(WINDOW_MS)).catch(() => undefined);
      },
    };
  }

  /** Takes the editor's answer to review `id`; false (ignored) for a malformed one or an id not open. */
  answer(id: unknown, raw: unknown): boolean {
    const open = typeof id === 'string' ? this.#open.get(id) : undefined;
    const answer = ReviewAnswer.safeParse(raw);
    if (!open || !answer.success) return false;
    this.#open.delete(id as string);
    open.settle(answer.data);
    return true;
  }

  /** The editor has gone: every open review's answer rejects with EditorGone, and later opens too. */
  abandon(what: string): void {
    this.#gone = new EditorGone(what);
    for (const open of this.#open.values()) open.gone(this.#gone);
    this.#open.clear();
  }
}
