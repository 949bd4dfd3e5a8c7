/**
 * Pending decisions (PROTOCOL.md "Pending decisions"): a permission prompt or a review that the
 * agent holds, as the agent publishes it to its Hub for the relay's Pending page; the answers
 * such a page may send back; and what the agent, then the relay, says of each answer. The agent
 * alone settles a decision, once, by the first answer from any surface the user lets it be
 * answered on (the policy's `ask_via`); the relay only carries what the agent publishes and what
 * the page answers, and refuses what it can tell is wrong before it carries anything.
 */
import { z } from 'zod';
import { PermissionClass } from './tool.ts';

/** Where a decision can be answered: the editor itself, the relay's Pending page, the assistant (MCP Apps, elicitation). */
export const SURFACES = ['editor', 'dashboard', 'assistant'] as const;
export const Surface = z.enum(SURFACES);
export type Surface = z.infer<typeof Surface>;

/** Bounds of what a decision carries and how long its parts wait. */
export const DECISION_LIMITS = {
  /** Decisions one agent publishes at once (the oldest first; a newer one waits for room). */
  maxPublished: 20,
  /** Decisions settled lately that one agent tells its Hub of, newest first, with who decided. */
  maxSettled: 50,
  /**
   * Characters of one decision's text (a prompt's preview, a review's diffs together) the page
   * shows whole; a longer one is published without it, and only deny (reject) is offered, as a
   * prompt that cannot show its preview offers only deny.
   */
  maxShownChars: 100_000,
  /** Characters of a reason given with a deny or a reject. */
  maxReasonChars: 2_000,
  /**
   * UTF-16 code units of who asks (the client's label, agent/calls/client-names.ts): a longer one,
   * a long Client ID Metadata Document URL beside a name, say, is published cut to it.
   */
  maxClientChars: 200,
  /** How long the Hub waits for the agent's word on an answer it carried (ms). */
  decideWaitMs: 10_000,
  /** How long a Pending page's form may be sent after the page was made (ms). */
  formTtlMs: 15 * 60_000,
} as const;

const L = DECISION_LIMITS;

/** An answer a page may give: allow once or deny a prompt; accept as proposed or reject a review. */
export const DecisionAnswer = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('allow') }),
  z.strictObject({ kind: z.literal('deny'), reason: z.string().max(L.maxReasonChars).optional() }),
  z.strictObject({ kind: z.literal('accept') }),
  z.strictObject({ kind: z.literal('reject'), reason: z.string().max(L.maxReasonChars).optional() }),
]);
export type DecisionAnswer = z.infer<typeof DecisionAnswer>;
export type DecisionOffer = DecisionAnswer['kind'];

/**
 * One part of what a decision shows: a prompt's preview (`title` null), or the unified diff of
 * one file of a review (`title` its path), each line as the editor shows it (protocol/visible.ts);
 * `lines` null when the decision's text is too long to show whole (`chars` says how long).
 */
export const DecisionSection = z.strictObject({
  title: z.string().max(4096).nullable(),
  lines: z.array(z.string().max(L.maxShownChars)).max(L.maxShownChars).nullable(),
  chars: z.number().int().nonnegative(),
});
export type DecisionSection = z.infer<typeof DecisionSection>;

/** A pending decision as the agent publishes it (wire `decisions`). */
export const WireDecision = z
  .strictObject({
    /** The agent's id for it: random, unique, never reused. */
    id: z.string().min(16).max(64),
    kind: z.enum(['prompt', 'review']),
    /** The agent's own id of the editor it is for. */
    editor: z.string().min(1).max(100),
    editor_name: z.string().max(200),
    /** Who asks, as the editor's prompt names the client (the name the owner allowed, with its id when names collide). */
    client: z.string().max(L.maxClientChars),
    tool: z.string().max(100),
    klass: PermissionClass,
    paths: z.array(z.string().max(4096)).max(100),
    sections: z.array(DecisionSection).min(1).max(100),
    /** The answers a page may give it: allow and deny, or deny alone, for a prompt; accept and reject, or reject alone, for a review. */
    offers: z.array(z.enum(['allow', 'deny', 'accept', 'reject'])).min(1).max(2),
    /** When it closes unanswered (ISO 8601). */
    expires_at: z.string().max(40),
  })
  .refine((d) => d.sections.reduce((n, s) => n + (s.lines ?? []).reduce((m, line) => m + line.length, 0), 0) <= L.maxShownChars, {
    message: `a decision shows at most ${L.maxShownChars} characters`,
    path: ['sections'],
  })
  .refine((d) => (d.kind === 'prompt' ? d.offers.every((o) => o === 'allow' || o === 'deny') : d.offers.every((o) => o === 'accept' || o === 'reject')), {
    message: 'a prompt offers allow and deny, a review accept and reject',
    path: ['offers'],
  });
export type WireDecision = z.infer<typeof WireDecision>;

/** What the agent did with an answer it took: `said` is what the page tells the user. */
export const SAID = ['allowed', 'denied', 'accepted', 'rejected', 'not_applied'] as const;

/**
 * The agent's refusals of an answer: ALREADY_DECIDED (another surface answered first, `by` which),
 * NOT_PENDING (no such decision waits: it closed, expired or never was the agent's), NOT_OFFERED
 * (the policy's `ask_via` keeps it off that surface), INVALID_ANSWER (an answer it does not offer,
 * such as allow for a preview too long to show).
 */
export const AGENT_REFUSALS = ['ALREADY_DECIDED', 'NOT_PENDING', 'NOT_OFFERED', 'INVALID_ANSWER'] as const;

/** The agent's word on one answer (wire `decided`). */
export const DecideResult = z.discriminatedUnion('ok', [
  z.strictObject({ ok: z.literal(true), said: z.enum(SAID) }),
  z.strictObject({ ok: z.literal(false), code: z.enum(AGENT_REFUSALS), by: Surface.optional() }),
]);
export type DecideResult = z.infer<typeof DecideResult>;

/**
 * The relay's refusals of a page's answer, before or instead of the agent's word: FORGED (a form
 * this relay did not make for this sign-in and this decision), REPLAYED (a form already sent once),
 * UNKNOWN_DEVICE (no device of this account has that id), OTHER_DEVICE (the decision waits on
 * another device than the form names), NOT_PENDING (no device published it, or it is gone),
 * DEVICE_OFFLINE (the device's agent is not connected, or left before it answered), NO_ANSWER (the
 * agent did not answer within DECISION_LIMITS.decideWaitMs).
 */
export const RELAY_REFUSALS = ['FORGED', 'REPLAYED', 'UNKNOWN_DEVICE', 'OTHER_DEVICE', 'NOT_PENDING', 'DEVICE_OFFLINE', 'NO_ANSWER'] as const;
export type RelayRefusal = (typeof RELAY_REFUSALS)[number];

/** What answering a decision from the page came to: the agent's word, or the relay's refusal. */
export type DecideOutcome = DecideResult | { ok: false; code: RelayRefusal };
