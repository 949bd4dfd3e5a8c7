/**
 * decide: the decision card's answer (protocol/app/card.ts) to a prompt or a review waiting for
 * the user — an app-only tool (`_meta.ui.visibility: ["app"]`) that the server lists and serves
 * only to a client that declared MCP Apps, whose host keeps it from the model; the card calls it
 * through the host when the user clicks. It is not in the catalog (tools/index.ts TOOLS): no
 * toolset lists it and no model-facing client can call it (-32602, unknown tool). The agent
 * takes an answer only with the secret the card got in the result's `_meta`, once
 * (agent/decisions/card.ts); each refusal is DECISION_REFUSED with its own `refusal` code.
 */
import { z } from 'zod';
import { DECISION_LIMITS, SAID } from '../decisions.ts';
import { defineTool } from '../tool.ts';
import { editorArg } from './common.ts';

/**
 * Why an answer from the card was refused: FORGED (a secret this agent did not make for this
 * decision), REPLAYED (its secret answered once already), OTHER_ACCOUNT and OTHER_DEVICE (a secret
 * made by the agent of another account, or of another device of this one), and the decision
 * book's own: ALREADY_DECIDED (with `by`), NOT_PENDING, NOT_OFFERED, INVALID_ANSWER.
 */
export const CARD_REFUSALS = ['FORGED', 'REPLAYED', 'OTHER_ACCOUNT', 'OTHER_DEVICE', 'ALREADY_DECIDED', 'NOT_PENDING', 'NOT_OFFERED', 'INVALID_ANSWER'] as const;
export type CardRefusal = (typeof CARD_REFUSALS)[number];

export const decide = defineTool({
  name: 'decide',
  title: 'Decide',
  description: "The user's answer to a prompt or a review, from the vimrelay card; only the card calls it.",
  permission: 'read',
  routing: 'editor',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input: z
    .object({
      editor: editorArg,
      decision: z.string().min(16).max(64).describe("The decision's id, from the card."),
      token: z.string().min(1).max(600).describe("The card's secret for this decision."),
      answer: z.enum(['allow', 'deny', 'accept', 'reject']).describe('allow or deny a prompt; accept or reject a review.'),
      reason: z.string().max(DECISION_LIMITS.maxReasonChars).optional().describe('Why, with deny or reject.'),
    })
    .strict(),
  output: z.object({
    decision: z.string().describe("The decision's id."),
    said: z.enum(SAID).describe('What came of the answer.'),
  }),
});
