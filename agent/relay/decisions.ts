/**
 * The relay's Pending page as a surface of the agent's pending decisions (PROTOCOL.md "Pending
 * decisions"): while the link runs, the book (decisions/book.ts) counts the page as a surface that
 * reaches the user; whenever what is pending changes, the decisions the page may answer go to the
 * Hub as one `decisions` message (the full list, oldest first, as many as fit the wire: at most
 * DECISION_LIMITS.maxPublished, within PUBLISH_BUDGET_BYTES; the rest wait for room), with those
 * settled lately and where (so that the page can say who decided one it still shows); and each
 * `decide` the Hub carries is settled by the book, alone, and answered with a `decided`. The relay
 * is trusted with nothing: the book refuses an answer to a decision the policy keeps off the page,
 * one it does not offer, or one already decided elsewhere, whatever the relay says.
 */
import { Buffer } from 'node:buffer';
import { DECISION_LIMITS, type AgentMessage, type HubMessage, type WireDecision } from '../../protocol/index.ts';
import type { DecisionBook } from '../decisions/book.ts';

/**
 * Bytes of JSON of the decisions one message carries at most: room under the wire's 4 MiB for
 * the message around them.
 */
export const PUBLISH_BUDGET_BYTES = 3 * 1024 * 1024;

/** The Pending page of the relay at `relayUrl`. */
export function pendingPageUrl(relayUrl: string): string {
  return `${relayUrl.replace(/\/+$/, '')}/dashboard/pending`;
}

/** The decisions one `decisions` message carries: the oldest first, as many as fit. */
export function publishable(all: readonly WireDecision[]): WireDecision[] {
  const out: WireDecision[] = [];
  let bytes = 0;
  for (const decision of all) {
    if (out.length >= DECISION_LIMITS.maxPublished) break;
    const size = Buffer.byteLength(JSON.stringify(decision));
    if (bytes + size > PUBLISH_BUDGET_BYTES) break;
    out.push(decision);
    bytes += size;
  }
  return out;
}

/** One link's side of the page: see the module header. */
export class PagePublisher {
  readonly #book: DecisionBook;
  readonly #send: (message: AgentMessage) => void;
  readonly #withdraw: () => void;
  readonly #unsubscribe: () => void;
  #live = false;
  #queued = false;
  /** The JSON of the last list sent, so that a change elsewhere in the book sends nothing new. */
  #last = '';

  /** `send` puts a message on the link (nothing while it is down). */
  constructor(book: DecisionBook, relayUrl: string, send: (message: AgentMessage) => void) {
    this.#book = book;
    this.#send = send;
    this.#withdraw = book.offer('dashboard', pendingPageUrl(relayUrl));
    this.#unsubscribe = book.onChange(() => this.#schedule());
  }

  /** The link is up (welcomed): the Hub has nothing of this agent's yet, so the list goes again. */
  connected(): void {
    this.#live = true;
    this.#last = '';
    this.#schedule();
  }

  /** The link is down: nothing is sent until it is up again. */
  disconnected(): void {
    this.#live = false;
  }

  /** Settles the Hub's `decide` in the book and answers it. */
  async decide(message: Extract<HubMessage, { type: 'decide' }>): Promise<void> {
    const result = await this.#book.answer(message.decision, message.answer, 'dashboard');
    this.#send({ type: 'decided', id: message.id, result });
  }

  /** The page is no surface any more (the link ended for good). */
  stop(): void {
    this.#live = false;
    this.#unsubscribe();
    this.#withdraw();
  }

  /** Sends the list once, after the changes of this turn of the event loop. */
  #schedule(): void {
    if (!this.#live || this.#queued) return;
    this.#queued = true;
    queueMicrotask(() => {
      this.#queued = false;
      if (!this.#live) return;
      const decisions = publishable(this.#book.list('dashboard'));
      const settled = this.#book.settled('dashboard').slice(0, DECISION_LIMITS.maxSettled);
      const json = JSON.stringify([decisions, settled]);
      if (json === this.#last) return;
      this.#last = json;
      this.#send({ type: 'decisions', decisions, settled });
    });
  }
}
