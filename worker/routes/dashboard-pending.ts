/**
 * The dashboard's Pending page (README "Deciding from elsewhere"), behind the owner's sign-in
 * (dashboard.ts mounts it):
 *
 *   GET  /dashboard/pending   what the agents online hold pending, each with its answer forms
 *   POST /dashboard/pending   {csrf, device, decision, nonce, answer, reason?} -> the page, saying what came of it
 *
 * A post is refused unless it carries the session's CSRF token (403, `checkedForm`) and a nonce
 * this relay made for this sign-in and this decision (FORGED, 403: auth/decision-forms.ts); the
 * Hub then carries it to the agent, which alone settles the decision (hub/decision-router.ts). The
 * page answers the post itself, with a status that says what came of it (pages/pending.ts
 * `outcomeStatus`), and the list as it is now: a reload sends the form again, which the Hub
 * refuses (REPLAYED) without carrying anything.
 */
import type { Context } from 'hono';
import { DecisionAnswer, DECISION_LIMITS, type DecideOutcome } from '../../protocol/index.ts';
import { hubFor } from '../account.ts';
import { checkDecisionNonce, decisionNonce } from '../auth/decision-forms.ts';
import { checkedForm, type SessionEnv } from '../http/session-guard.ts';
import { page } from '../pages/layout.ts';
import { outcomeStatus, pendingBody } from '../pages/pending.ts';

/** The Pending page, saying what came of an answer when `outcome` is given. */
export async function pendingPage(c: Context<SessionEnv>, outcome?: DecideOutcome): Promise<Response> {
  const nowMs = Date.now();
  const secret = c.env.OWNER_SECRET ?? '';
  const pending = await hubFor(c.env).pendingDecisions();
  const devices = await Promise.all(
    pending.map(async (entry) => ({
      device: entry.device,
      decisions: await Promise.all(entry.decisions.map(async (d) => ({ ...d, nonce: await decisionNonce(secret, c.var.session, d.id, nowMs) }))),
    })),
  );
  return page({
    title: 'Pending',
    csrf: c.var.csrf,
    status: outcome === undefined ? 200 : outcomeStatus(outcome),
    body: pendingBody({ csrf: c.var.csrf, nowMs, devices, ...(outcome === undefined ? {} : { outcome }) }),
  });
}

/** An answer from the page's form, checked as the module header says, then carried to its agent. */
export async function answerPending(c: Context<SessionEnv>): Promise<Response> {
  const form = await checkedForm(c);
  if (form instanceof Response) return form;
  const device = form.get('device') ?? '';
  const decision = form.get('decision') ?? '';
  const kind = form.get('answer');
  const reason = (form.get('reason') ?? '').trim();
  const negative = kind === 'deny' || kind === 'reject';
  const answer = DecisionAnswer.safeParse(negative && reason !== '' ? { kind, reason: reason.slice(0, DECISION_LIMITS.maxReasonChars) } : { kind });
  if (!answer.success || device.length > 100 || decision.length > 64) return pendingPage(c, { ok: false, code: 'INVALID_ANSWER' });
  const checked = await checkDecisionNonce(c.env.OWNER_SECRET ?? '', c.var.session, decision, form.get('nonce'), Date.now());
  if (!checked) return pendingPage(c, { ok: false, code: 'FORGED' });
  const outcome = await hubFor(c.env).decide({ device, decision, answer: answer.data, form: checked });
  return pendingPage(c, outcome);
}
