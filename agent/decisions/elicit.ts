/**
 * Asking a pending decision in the assistant by a 2025-era `elicitation/create` (spec 2025-11-25
 * "client/elicitation", form mode), over a connection that carries server requests (`vimrelay
 * serve --stdio`): the form (protocol/elicitation.ts) goes to the client as the decision opens,
 * beside the editor's prompt, and the user's answer is taken by the book like any other surface's
 * (`answer(…, 'assistant')`: the first answer wins). The request is cancelled (the SDK sends
 * `notifications/cancelled`) as soon as the decision is over, answered elsewhere included. A form
 * the user dismissed (cancel), or one the client could not show, leaves the decision to the other
 * surfaces; a declined one is a deny, which does not reopen anywhere.
 */
import { decisionForm, formReply, type AssistantChannel, type WireDecision } from '../../protocol/index.ts';
import type { AssistantAsk, DecisionBook } from './book.ts';

/** The AssistantAsk of one call whose client is asked by `elicitation/create`. */
export function askByRequest(book: DecisionBook, channel: Extract<AssistantChannel, { kind: 'request' }>): AssistantAsk {
  return (decision: WireDecision) => {
    const over = new AbortController();
    const stillOpen = (): boolean => book.list('assistant').some((d) => d.id === decision.id);
    const unsubscribe = book.onChange(() => {
      if (!stillOpen()) over.abort();
    });
    channel
      .elicit(decisionForm(decision), over.signal)
      .then(async (result) => {
        const reply = formReply(result, decision);
        // An answer that lost the race is refused by the book (ALREADY_DECIDED); the call's own
        // result says who decided.
        if (reply.kind === 'answer') await book.answer(decision.id, reply.answer, 'assistant');
      })
      // Cancelled because the decision is over, or the client failed to ask: the other surfaces decide.
      .catch(() => undefined)
      .finally(unsubscribe);
  };
}
