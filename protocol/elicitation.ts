/**
 * A pending decision asked in the assistant by elicitation, form mode (README "Deciding from
 * elsewhere"; spec 2025-11-25 "client/elicitation", and 2026-07-28 "basic/patterns/mrtr", where
 * the same request rides in a tool call's `input_required` result): which clients can be asked,
 * the form a decision becomes, and what an answer to it says. Pure and runtime-neutral.
 *
 * The form asks for a choice among the decision's own offers (allow once / deny, accept / reject)
 * and an optional reason; never for anything secret (spec: servers MUST NOT request sensitive
 * information through form elicitation). Its message shows what the editor's prompt shows: the
 * command or the diff whole, every line escaped (protocol/visible.ts), or, for a decision too long
 * to show whole, that only deny (reject) is offered.
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { DECISION_LIMITS, type DecisionAnswer, type DecisionOffer, type WireDecision } from './decisions.ts';
import { fail, type ToolOutcome } from './errors.ts';
import { visible } from './visible.ts';

/** The key of the one input request a decision's `input_required` result carries (spec 2026-07-28 `inputRequests`). */
export const DECISION_INPUT_KEY = 'decision';

/** A form-mode `elicitation/create`'s params (spec 2025-11-25 ElicitRequestFormParams), as this module builds them. */
export interface DecisionForm {
  mode: 'form';
  message: string;
  requestedSchema: {
    type: 'object';
    properties: {
      answer: { type: 'string'; title: string; oneOf: { const: DecisionOffer; title: string }[] };
      reason: { type: 'string'; title: string; maxLength: number };
    };
    required: ['answer'];
  };
}

/**
 * How a call's client can be asked, as the MCP layer tells its `forward`: `request`, a 2025-era
 * connection that carries server requests (stdio), which sends `elicitation/create` and resolves
 * with the client's result; `rounds`, a 2026-07-28 request, which answers `input_required` and
 * hears the user in the client's retry (`inputResponses`, and the `requestState` it echoes).
 */
export type AssistantChannel =
  | { readonly kind: 'request'; elicit(form: DecisionForm, signal: ServerContext['mcpReq']['signal']): Promise<unknown> }
  | { readonly kind: 'rounds'; readonly requestState?: string; readonly inputResponses?: Readonly<Record<string, unknown>> };

/** A tool call's answer that asks the client for input first (spec 2026-07-28 InputRequiredResult). */
export interface InputRequiredOutcome {
  readonly inputRequired: { readonly form: DecisionForm; readonly requestState: string };
}

/**
 * Whether `capabilities` (a client's, at `initialize` or in a 2026-07-28 request's envelope)
 * declare form-mode elicitation: `elicitation.form`, or an empty `elicitation` object, which
 * spec 2025-11-25 ("client/elicitation", Capabilities) reads as form mode.
 */
export function elicitsForm(capabilities: unknown): boolean {
  const elicitation = (capabilities as { elicitation?: unknown } | undefined)?.elicitation;
  if (typeof elicitation !== 'object' || elicitation === null) return false;
  return 'form' in elicitation || !('url' in elicitation);
}

const OFFER_TITLES: { readonly [O in DecisionOffer]: string } = { allow: 'Allow once', deny: 'Deny', accept: 'Accept', reject: 'Reject' };

/** The form that asks `decision` (see the module header). */
export function decisionForm(decision: WireDecision): DecisionForm {
  const what = decision.kind === 'prompt' ? `run ${decision.tool} (${decision.klass})` : `make this edit (${decision.tool})`;
  const head = `vimrelay: ${visible(decision.client)} asks to ${what} in ${visible(decision.editor_name)}.`;
  const parts = decision.sections.map((s) => {
    const title = s.title === null ? [] : [`--- ${s.title}`];
    const body = s.lines ?? [`(${s.chars} characters, too long to show here: only ${decision.kind === 'prompt' ? 'deny' : 'reject'} is offered. The editor shows it whole.)`];
    return [...title, ...body].join('\n');
  });
  return {
    mode: 'form',
    message: [head, ...parts].join('\n\n'),
    requestedSchema: {
      type: 'object',
      properties: {
        answer: { type: 'string', title: decision.kind === 'prompt' ? 'Allow this once?' : 'Apply this edit?', oneOf: decision.offers.map((o) => ({ const: o, title: OFFER_TITLES[o] })) },
        reason: { type: 'string', title: 'Reason (with deny or reject; the assistant reads it)', maxLength: DECISION_LIMITS.maxReasonChars },
      },
      required: ['answer'],
    },
  };
}

/**
 * What the client's result to a decision's form says: the user's `answer` (accept with a choice;
 * decline is deny or reject, as the seed broker took it: a declined decision does not reopen
 * elsewhere); `dismissed` when they closed the form without choosing (cancel: the decision waits
 * on its other surfaces); `invalid` for a result that is none of these or chooses what is not offered.
 */
export type FormReply = { kind: 'answer'; answer: DecisionAnswer } | { kind: 'dismissed' } | { kind: 'invalid' };

export function formReply(result: unknown, decision: Pick<WireDecision, 'kind' | 'offers'>): FormReply {
  if (typeof result !== 'object' || result === null) return { kind: 'invalid' };
  const { action, content } = result as { action?: unknown; content?: unknown };
  const no: DecisionOffer = decision.kind === 'prompt' ? 'deny' : 'reject';
  if (action === 'cancel') return { kind: 'dismissed' };
  if (action === 'decline') return { kind: 'answer', answer: { kind: no } as DecisionAnswer };
  if (action !== 'accept' || typeof content !== 'object' || content === null) return { kind: 'invalid' };
  const { answer, reason } = content as { answer?: unknown; reason?: unknown };
  const chosen = decision.offers.find((o) => o === answer);
  if (chosen === undefined) return { kind: 'invalid' };
  if (reason !== undefined && (typeof reason !== 'string' || reason.length > DECISION_LIMITS.maxReasonChars)) return { kind: 'invalid' };
  if (chosen === 'allow' || chosen === 'accept') return { kind: 'answer', answer: { kind: chosen } };
  const trimmed = typeof reason === 'string' ? reason.trim() : '';
  return { kind: 'answer', answer: { kind: chosen, ...(trimmed === '' ? {} : { reason: trimmed }) } };
}

/**
 * A call's rounds as the relay carries them to the agent (wire `call.rounds`): present when the
 * client can be asked by rounds; on a retry, the state it echoes and its responses.
 */
export const WireRounds = z.object({
  request_state: z.string().max(4096).optional(),
  input_responses: z.record(z.string(), z.unknown()).optional(),
});
export type WireRounds = z.infer<typeof WireRounds>;

/** The rounds channel a wire `call.rounds` stands for. */
export function roundsOf(wire: WireRounds): Extract<AssistantChannel, { kind: 'rounds' }> {
  return {
    kind: 'rounds',
    ...(wire.request_state === undefined ? {} : { requestState: wire.request_state }),
    ...(wire.input_responses === undefined ? {} : { inputResponses: wire.input_responses }),
  };
}

/**
 * An `input_required` answer as it crosses the relay: the agent's `result` carries a tool outcome
 * only, so it travels as the outcome INPUT_REQUIRED with `form` and `request_state`, which the
 * relay's MCP layer turns back into the result (`carriedInput`); the model never sees it.
 */
export function carryInput(outcome: ToolOutcome | InputRequiredOutcome): ToolOutcome {
  if (!('inputRequired' in outcome)) return outcome;
  const { form, requestState } = outcome.inputRequired;
  return fail('INPUT_REQUIRED', 'The user is being asked in the assistant.', { form, request_state: requestState });
}

const CarriedForm = z.object({
  mode: z.literal('form'),
  message: z.string(),
  requestedSchema: z.object({ type: z.literal('object'), properties: z.record(z.string(), z.unknown()), required: z.array(z.string()) }),
});

/** The `input_required` answer an outcome carries (carryInput), or the outcome itself. */
export function carriedInput(outcome: ToolOutcome): ToolOutcome | InputRequiredOutcome {
  if (outcome.ok || outcome.error.code !== 'INPUT_REQUIRED') return outcome;
  const form = CarriedForm.safeParse(outcome.error.form);
  const requestState = outcome.error.request_state;
  if (!form.success || typeof requestState !== 'string') return fail('INTERNAL', 'The agent asked for input in a shape this relay does not know.');
  return { inputRequired: { form: form.data as DecisionForm, requestState } };
}
