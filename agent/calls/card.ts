/**
 * The assistant's decision card, as the dispatcher serves it (protocol/app/card.ts; README
 * "Deciding from elsewhere"): what a call whose client renders the card answers while its prompt
 * or review waits (the card's `_meta`: the decision as published, and its secret), and the
 * app-only tool `decide` with which the card answers. The agent alone settles: `decide` checks
 * the card's secret (decisions/card.ts), then hands the answer to the decision book as the
 * assistant's; each refusal is DECISION_REFUSED with its own `refusal`.
 *
 * A prompt asked in the card does not hold its call: the call answers DECISION_PENDING with the
 * decision's id at once, the prompt waits (in the editor and the card, on the dashboard) up to
 * REVIEW_LIMITS.expiryMs, and the call runs when the user allows it; review_status with that id
 * gives what the call answered then (`Deferred`).
 */
import { CARD_META_KEY, DecisionAnswer, fail, type CardMeta, type CardRefusal, type ToolOutcome } from '../../protocol/index.ts';
import type { DecisionBook } from '../decisions/book.ts';
import type { CardKeys } from '../decisions/card.ts';

/** The card's `_meta` for decision `id` of `book`, if it still waits for the assistant. */
export function cardMeta(book: DecisionBook, keys: CardKeys, id: string): Record<string, unknown> | undefined {
  const decision = book.list('assistant').find((d) => d.id === id);
  if (!decision) return undefined;
  const meta: CardMeta = { decision, token: keys.token(id) };
  return { [CARD_META_KEY]: meta };
}

/** What a call answers while its prompt waits in the card. */
export function promptPending(tool: string, id: string, meta: Record<string, unknown> | undefined): ToolOutcome {
  const outcome = fail('DECISION_PENDING', `${tool} waits for the user to allow or deny it, in the card shown with this result or in their editor; nothing ran yet.`, {
    decision: { id, status: 'pending' },
    hint: `Tell the user it waits for them. Then call review_status with the same editor and id "${id}" (wait_ms up to 25000): it answers what ${tool} answered once they allowed it, or the denial.`,
  });
  return meta ? { ...outcome, meta } : outcome;
}

/** The outcome of `decide` (its arguments validated): the book's word, or a refusal. */
export async function answerFromCard(book: DecisionBook, keys: CardKeys, args: Record<string, unknown>): Promise<ToolOutcome> {
  const decision = String(args.decision);
  const reason = typeof args.reason === 'string' && args.reason.trim() !== '' ? { reason: args.reason.trim() } : {};
  const negative = args.answer === 'deny' || args.answer === 'reject';
  const answer = DecisionAnswer.safeParse({ kind: args.answer, ...(negative ? reason : {}) });
  if (!answer.success) return refused('INVALID_ANSWER', decision);
  const checked = keys.check(String(args.token), decision);
  if (checked) return refused(checked, decision);
  const result = await book.answer(decision, answer.data, 'assistant');
  if (!result.ok) return refused(result.code, decision, result.by);
  return { ok: true, data: { decision, said: result.said } };
}

const WHY: { readonly [C in CardRefusal]: string } = {
  FORGED: 'the card\'s secret is not the one this agent made for this decision',
  REPLAYED: 'this decision was answered with its card\'s secret once already',
  OTHER_ACCOUNT: 'the secret was made for another account',
  OTHER_DEVICE: 'the secret was made by another device\'s agent',
  ALREADY_DECIDED: 'it was decided already',
  NOT_PENDING: 'nothing waits under that id (it was answered, closed or expired)',
  NOT_OFFERED: 'the user\'s ask_via keeps it out of the assistant',
  INVALID_ANSWER: 'that answer is not offered for it',
};

function refused(refusal: CardRefusal, decision: string, by?: string): ToolOutcome {
  return fail('DECISION_REFUSED', `The answer to decision ${decision} was refused: ${WHY[refusal]}${by ? ` (${by})` : ''}.`, { refusal, decision, ...(by ? { by } : {}) });
}

/** A prompt's call that answered pending, running on until the user decides: what it answers then. */
export interface Deferred {
  readonly tool: string;
  /** The agent's id of the editor it runs on. */
  readonly editor: string;
  readonly outcome: Promise<ToolOutcome>;
}
