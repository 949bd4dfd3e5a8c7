/**
 * Asking pending decisions in the assistant by rounds (spec 2026-07-28 "basic/patterns/mrtr"):
 * a tool call whose client declared form elicitation runs as usual, and when it opens a decision
 * (a prompt, a review) the call's request is answered at once with `input_required`, carrying the
 * decision's form (protocol/elicitation.ts) and a sealed `requestState` (request-state.ts); the
 * call itself keeps waiting here, its editor prompt open beside the form. The client's retry
 * (the same tool, the same arguments, `inputResponses` and the state echoed) gives the book the
 * user's answer (`answer(…, 'assistant')`: the first answer wins), then waits for the call's
 * outcome, or for the next decision it opens, which is another round.
 *
 * A retry's state is refused, and nothing is answered, with codes of its own: FORGED (not sealed
 * by this process, changed, made for another call, or past its decision's expiry), REPLAYED (its
 * single use is spent), ALREADY_DECIDED (another surface answered first: `by` says which, and
 * `outcome` is what the call came to), NOT_PENDING (the decision is over, unanswered), and
 * INVALID_ANSWER (a reply the form did not offer). A dismissed form (cancel) answers nothing: the
 * retry waits for the other surfaces. A waiting call ends at its own deadline like any other; its
 * retry's request closing cancels it, as the first request's would have.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  DECISION_INPUT_KEY,
  decisionForm,
  fail,
  formReply,
  type AssistantChannel,
  type InputRequiredOutcome,
  type ToolOutcome,
  type WireDecision,
} from '../../protocol/index.ts';
import type { AssistantAsk, DecisionBook } from './book.ts';
import { where } from './elsewhere.ts';
import { RequestStateSeal } from './request-state.ts';

/** How long a call that ended stays for a retry that has yet to fetch its outcome (ms). */
const KEPT_MS = 60_000;

type Rounds = Extract<AssistantChannel, { kind: 'rounds' }>;
type Answer = ToolOutcome | InputRequiredOutcome;
/** The request a round answers: its closing cancels the call while the round waits. */
type RequestSignal = Pick<AbortSignal, 'aborted' | 'addEventListener' | 'removeEventListener'>;

/** One call that waits between rounds. */
interface Waiting {
  readonly id: string;
  readonly binding: string;
  /** Aborts the call: its client went away while a round waited. */
  readonly stop: AbortController;
  outcome: Promise<ToolOutcome>;
  /** Decisions the call opened and no round has asked yet, oldest first. */
  readonly queue: WireDecision[];
  /** Every decision a round asked, by id. */
  readonly asked: Map<string, WireDecision>;
  /** Wakes the round that waits for the next decision. */
  wake: () => void;
}

export class ElicitRounds {
  readonly #book: DecisionBook;
  readonly #seal: RequestStateSeal;
  readonly #now: () => number;
  readonly #waiting = new Map<string, Waiting>();
  /** States taken once, by nonce, until they expire. */
  readonly #used = new Map<string, number>();

  constructor(book: DecisionBook, seal: RequestStateSeal = new RequestStateSeal(), now: () => number = Date.now) {
    this.#book = book;
    this.#seal = seal;
    this.#now = now;
  }

  /**
   * A call's first round: `run` runs it with the AssistantAsk that queues what it opens, until
   * its signal aborts; resolves with its outcome, or `input_required` for its first decision.
   * `binding` names the call (its tool and arguments), which every retry must repeat.
   */
  start(binding: string, run: (ask: AssistantAsk, signal: AbortSignal) => Promise<ToolOutcome>, request: RequestSignal): Promise<Answer> {
    const held: Waiting = { id: randomUUID(), binding, stop: new AbortController(), queue: [], asked: new Map(), outcome: Promise.resolve(fail('INTERNAL', 'The call did not start.')), wake: () => {} };
    const ask: AssistantAsk = (decision) => {
      held.queue.push(decision);
      held.wake();
    };
    held.outcome = run(ask, held.stop.signal);
    this.#waiting.set(held.id, held);
    // Gone once a round has given its outcome; else kept a while for a late retry.
    const forget = (): void => void setTimeout(() => this.#waiting.delete(held.id), KEPT_MS).unref();
    held.outcome.then(forget, forget);
    return this.#round(held, request);
  }

  /** A retry with `rounds.requestState`; see the module header. */
  async resume(binding: string, rounds: Rounds, request: RequestSignal): Promise<Answer> {
    const opened = this.#seal.open(rounds.requestState ?? '');
    if (!opened.ok) return forged('was not made by this agent for this call, or was changed');
    const state = opened.payload;
    if (state.binding !== binding) return forged('was made for another call: a retry repeats the tool and the arguments of the call that was asked');
    if (state.expires <= this.#now()) return forged('has expired with its decision');
    if (this.#used.has(state.nonce)) {
      return fail('REPLAYED', 'This requestState was answered once already; each is taken once.', { hint: 'Nothing was answered again. Call the tool anew if the user still wants it.' });
    }
    this.#spend(state.nonce, state.expires);
    const waiting = this.#waiting.get(state.call);
    const decision = waiting?.asked.get(state.decision);
    if (!waiting || !decision) return this.#over(state.decision);
    const reply = formReply(rounds.inputResponses?.[DECISION_INPUT_KEY], decision);
    if (reply.kind === 'invalid') {
      return fail('INVALID_ANSWER', `The reply under "${DECISION_INPUT_KEY}" is not one the form offered (${decision.offers.join(' or ')}).`, {
        hint: 'Nothing was answered; the user can still decide in the editor.',
      });
    }
    if (reply.kind === 'dismissed') return this.#round(waiting, request);
    const taken = await this.#book.answer(decision.id, reply.answer, 'assistant');
    if (taken.ok) return this.#round(waiting, request);
    if (taken.code === 'ALREADY_DECIDED' && taken.by) {
      const next = await this.#round(waiting, request);
      if ('inputRequired' in next) return next;
      return fail('ALREADY_DECIDED', `The user decided ${where(taken.by)} before this answer came; it was not taken.`, {
        by: taken.by,
        outcome: next.ok ? next.data : { error: next.error },
        hint: '`outcome` is what the call came to by their decision.',
      });
    }
    return fail(taken.code === 'ALREADY_DECIDED' ? 'NOT_PENDING' : taken.code, `The answer was refused (${taken.code}).`);
  }

  /** The refusal for an answer to a decision whose call is gone. */
  #over(decision: string): ToolOutcome {
    const settled = this.#book.settled('assistant').find((s) => s.id === decision);
    if (settled) return fail('ALREADY_DECIDED', `The user decided ${where(settled.by)}; nothing more is taken.`, { by: settled.by });
    return fail('NOT_PENDING', 'The decision is over (it closed unanswered, or its call ended); nothing was answered.', {
      hint: 'Call the tool anew if the user still wants it.',
    });
  }

  /** Waits for the call's outcome or its next open decision, whichever comes first; `request` closing cancels the call meanwhile. */
  async #round(waiting: Waiting, request: RequestSignal): Promise<Answer> {
    const cancel = (): void => waiting.stop.abort();
    if (request.aborted) cancel();
    else request.addEventListener('abort', cancel, { once: true });
    try {
      for (;;) {
        const next = waiting.queue.shift();
        if (next) {
          if (this.#book.list('assistant').some((d) => d.id === next.id)) return this.#ask(waiting, next);
          continue;
        }
        const asked = new Promise<'asked'>((resolve) => (waiting.wake = () => resolve('asked')));
        const woke = await Promise.race([waiting.outcome.then(() => 'done' as const), asked]);
        if (woke === 'done' && waiting.queue.length === 0) {
          this.#waiting.delete(waiting.id);
          return await waiting.outcome;
        }
      }
    } finally {
      request.removeEventListener('abort', cancel);
    }
  }

  /** `input_required` for `decision`, with a fresh state for it. */
  #ask(waiting: Waiting, decision: WireDecision): InputRequiredOutcome {
    waiting.asked.set(decision.id, decision);
    const expires = Date.parse(decision.expires_at);
    const requestState = this.#seal.seal({ call: waiting.id, decision: decision.id, nonce: randomUUID(), expires, binding: waiting.binding });
    return { inputRequired: { form: decisionForm(decision), requestState } };
  }

  #spend(nonce: string, expires: number): void {
    const now = this.#now();
    for (const [n, until] of this.#used) if (until <= now) this.#used.delete(n);
    this.#used.set(nonce, expires);
  }
}

/**
 * What a retry must repeat of the call it resumes: the tool and its arguments (keys in any
 * order), and who calls (`caller`: through a relay, the client id its token names), digested.
 */
export function callBinding(tool: string, args: Readonly<Record<string, unknown>>, caller = ''): string {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, canonical(v)]))
        : value;
  return createHash('sha256').update(JSON.stringify([caller, tool, canonical(args)])).digest('base64url');
}

function forged(why: string): ToolOutcome {
  return fail('FORGED', `This requestState ${why}; nothing was answered.`, { hint: 'Answer the form the call asked with, in a retry of that same call.' });
}
