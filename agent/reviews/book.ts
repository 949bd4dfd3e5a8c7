/**
 * The reviews this agent holds (README "Reviews"; DESIGN "Pending decisions"): an edit the policy
 * (or the model) sends to review is run on a copy of its buffer (Editor.propose), shown to the
 * user as a diff in their editor (Editor.openReview), and made only when they accept it, as they
 * left it. The book alone settles each review, once; the model learns what the user decided.
 *
 * Contract: `start` proposes the edit and opens its review, then waits for the user's decision up
 * to the call's `timeout_ms` (default: REVIEW_LIMITS.maxWaitMs), and never past the call's deadline
 * less LIMITS.promptMarginMs. Decided by then, the call's outcome is the decision's; else it is
 * the proposal's data with `review: {id, decision: "pending"}` (nothing changed), and the review
 * stays open until the user decides, the editor goes away, or it expires
 * (REVIEW_LIMITS.expiryMs), whichever comes first; `status` then gives the outcome, waiting for it
 * up to `wait_ms`. A proposal that changes nothing is answered at once, unreviewed.
 * - accept: the accepted lines are merged with whatever the user typed in the buffer meanwhile
 *   (diff.ts `merge3`) and made in one call (Editor.applyReviewed), tick-guarded; a buffer that
 *   changed again between the read and the write is merged again (at most MERGE_TRIES times).
 *   The outcome is the tool's data with the buffer as it is now, and `review.decision`
 *   `accepted`, or `accepted_with_changes` with `user_changes`, the diff from the proposal to
 *   what was applied. Where the two changes meet, nothing is made: REVIEW_CONFLICT.
 * - reject (closing the review is a reject, reason "closed"): REVIEW_REJECTED with the reason.
 * - expiry: REVIEW_EXPIRED, and the editor says it expired. The editor gone: EDITOR_OFFLINE.
 * Each of these failures carries the same `review` object. Every decision is audited through
 * `record` (the call's own line when the call is still waiting, a line of its own after it
 * answered "pending"), saying who decided. Outcomes are kept for `status` (KEPT at most).
 */
import { randomUUID } from 'node:crypto';
import { fail, LIMITS, REVIEW_LIMITS, type ToolOutcome } from '../../protocol/index.ts';
import type { AuditDecision } from '../audit/log.ts';
import type { Caller } from '../policy/types.ts';
import { EditorGone, isProposal, type CallControl, type Proposal } from '../editors/call.ts';
import type { Editor } from '../editors/editor.ts';
import { visible } from '../editors/prompts.ts';
import type { OpenReview, ReviewAnswer } from '../editors/reviews.ts';
import type { EditorTool } from '../editors/tools/tool.ts';
import { merge3, unifiedDiff } from './diff.ts';

/** How many times an accepted review is merged again when the buffer keeps changing. */
const MERGE_TRIES = 3;

/** Settled reviews kept for `status`, the oldest dropped first. */
const KEPT = 200;

/** How long a settled review is kept for `status` (ms). */
const KEPT_MS = 60 * 60_000;

/** One review's decision as the model sees it. */
export type ReviewDecision = 'accepted' | 'accepted_with_changes' | 'rejected' | 'conflict' | 'expired' | 'offline' | 'pending';

/** What the book records of a review's decision (the dispatcher's CallRecord, with who decided). */
export interface ReviewRecord {
  client: Caller;
  editor: string;
  tool: string;
  args: unknown;
  decision: AuditDecision;
  outcome: ToolOutcome;
  startedAt: number;
  decidedBy?: 'editor';
}

/** One review call as the dispatcher hands it over. */
export interface ReviewCall {
  editor: Editor;
  tool: EditorTool;
  args: Record<string, unknown>;
  control: CallControl;
  client: Caller;
  /** The call's id in the dispatcher, and when it started (for the audit line of a later decision). */
  startedAt: number;
}

interface Entry {
  readonly id: string;
  readonly call: ReviewCall;
  readonly proposal: Proposal;
  /** Settles once, with the final outcome. */
  readonly settled: Promise<ToolOutcome>;
  settle(outcome: ToolOutcome, decision: ReviewDecision): void;
  outcome: ToolOutcome | null;
  /** Whether the call that started it has answered (then a decision gets an audit line of its own). */
  answered: boolean;
  settledAt: number;
}

/** A review's decision as its `review` object (the part every outcome of it carries). */
function reviewObject(id: string, decision: ReviewDecision, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, decision, ...extra };
}

export class ReviewBook {
  readonly #record: (rec: ReviewRecord) => void;
  readonly #entries = new Map<string, Entry>();
  readonly #expiryMs: number;

  /** `record` audits a decision; `expiryMs` (default REVIEW_LIMITS.expiryMs) ends an undecided review. */
  constructor(record: (rec: ReviewRecord) => void, expiryMs: number = REVIEW_LIMITS.expiryMs) {
    this.#record = record;
    this.#expiryMs = expiryMs;
  }

  /**
   * Runs `call` under review, as the module header says; resolves with its outcome and the audit
   * decision of the call, never rejects.
   */
  async start(call: ReviewCall): Promise<{ outcome: ToolOutcome; decision: AuditDecision }> {
    const { editor, tool, args, control } = call;
    const made = await editor.propose(tool, args, control, { creates: tool.review?.creates ?? false, max_lines: REVIEW_LIMITS.maxLines });
    if (!isProposal(made)) return { outcome: made, decision: 'review' };
    if (sameLines(made.base, made.proposed)) return { outcome: { ok: true, data: made.result }, decision: 'review' };
    const id = randomUUID();
    let open: OpenReview;
    try {
      open = await editor.openReview(id, { buf: numberOf(made.result.buf), header: headerOf(call, made), proposed: made.proposed }, control.signal);
    } catch (error) {
      if (error instanceof EditorGone) return { outcome: fail('EDITOR_OFFLINE', 'The editor went away before the review could open; nothing was changed.'), decision: 'offline' };
      return { outcome: fail('EDITOR_ERROR', `The editor could not open the review: ${String(error)}; nothing was changed.`), decision: 'review' };
    }
    const entry = this.#enter(id, call, made);
    this.#follow(entry, open);
    const waitMs = Math.min(typeof args.timeout_ms === 'number' ? args.timeout_ms : REVIEW_LIMITS.maxWaitMs, control.deadline - LIMITS.promptMarginMs - Date.now());
    // Settled just as the wait ended: its outcome is still this call's.
    const outcome = (await within(entry.settled, waitMs, control.signal)) ?? entry.outcome;
    entry.answered = true;
    if (outcome) return { outcome, decision: auditOf(outcome) };
    return { outcome: pendingOutcome(entry), decision: 'review:pending' };
  }

  /**
   * The outcome of review `id` on `editor` (review_status): what the edit would have answered, with
   * its `tool`; pending when the user has not decided within `waitMs`.
   */
  async status(editor: Editor, id: string, waitMs: number, signal: AbortSignal): Promise<ToolOutcome> {
    this.#forgetOld();
    const entry = this.#entries.get(id);
    if (!entry || entry.call.editor !== editor) {
      return fail('REVIEW_NOT_FOUND', `No review with id ${id} is known in this editor.`);
    }
    const outcome = entry.outcome ?? (await within(entry.settled, waitMs, signal)) ?? pendingOutcome(entry);
    return outcome.ok ? { ok: true, data: { tool: entry.call.tool.spec.name, ...outcome.data } } : outcome;
  }

  #enter(id: string, call: ReviewCall, proposal: Proposal): Entry {
    let resolve!: (outcome: ToolOutcome) => void;
    const settled = new Promise<ToolOutcome>((r) => (resolve = r));
    const entry: Entry = {
      id,
      call,
      proposal,
      settled,
      outcome: null,
      answered: false,
      settledAt: 0,
      settle: (outcome, decision) => {
        if (entry.outcome) return;
        entry.outcome = outcome;
        entry.settledAt = Date.now();
        resolve(outcome);
        // The call's own audit line says it while it waits; after "pending", a line of its own.
        if (entry.answered) {
          this.#record({ client: call.client, editor: call.editor.id, tool: call.tool.spec.name, args: call.args, decision: `review:${decision}` as AuditDecision, outcome, startedAt: call.startedAt, decidedBy: 'editor' });
        }
      },
    };
    this.#entries.set(id, entry);
    this.#forgetOld();
    return entry;
  }

  /** Waits for the user's decision on `entry` (or its expiry, or the editor's going) and settles it. */
  #follow(entry: Entry, open: OpenReview): void {
    const { id } = entry;
    const expiry = setTimeout(() => {
      void open.expire();
      entry.settle(fail('REVIEW_EXPIRED', `Nobody decided on the review within ${Math.round(this.#expiryMs / 60_000)} minutes, so it expired; nothing was changed.`, { review: reviewObject(id, 'expired') }), 'expired');
    }, this.#expiryMs);
    expiry.unref();
    open.answer.then(
      async (answer) => {
        clearTimeout(expiry);
        const { outcome, decision, message } = await this.#decide(entry, answer);
        await open.close(message);
        entry.settle(outcome, decision);
      },
      () => {
        clearTimeout(expiry);
        entry.settle(fail('EDITOR_OFFLINE', 'The editor went away before the user decided on the review; nothing was changed.', { review: reviewObject(id, 'offline') }), 'offline');
      },
    );
  }

  /** The outcome of the user's `answer`, its decision, and the message the editor shows as the review closes. */
  async #decide(entry: Entry, answer: ReviewAnswer): Promise<{ outcome: ToolOutcome; decision: ReviewDecision; message: string }> {
    const { id, proposal, call } = entry;
    if (answer.kind === 'reject') {
      const reason = answer.reason?.trim() ?? '';
      const outcome = fail('REVIEW_REJECTED', `The user rejected ${call.tool.spec.name}${reason ? `: ${reason}` : '.'} Nothing was changed.`, {
        review: reviewObject(id, 'rejected', reason ? { reason } : {}),
        ...(reason ? { hint: reason === 'closed' ? 'The user closed the review without accepting it. Ask them what they want before proposing it again.' : 'Follow the reason the user gave.' } : {}),
      });
      return { outcome, decision: 'rejected', message: 'vimrelay: rejected; nothing was changed' };
    }
    const buf = numberOf(proposal.result.buf);
    const signal = AbortSignal.timeout(LIMITS.callDeadlineMs);
    let tick = proposal.baseTick;
    let current: readonly string[] = proposal.base;
    for (let tries = 0; tries < MERGE_TRIES; tries++) {
      const merged = merge3(proposal.base, current, answer.lines);
      if (!merged.ok) {
        const outcome = fail('REVIEW_CONFLICT', `The user accepted the review, but the buffer had changed near line ${merged.conflict.line} where it edits; nothing was changed.`, {
          review: reviewObject(id, 'conflict'),
          line: merged.conflict.line,
        });
        return { outcome, decision: 'conflict', message: `vimrelay: the buffer changed near line ${merged.conflict.line} during the review; nothing was applied` };
      }
      const applied = await call.editor.applyReviewed(buf, tick, merged.hunks, signal);
      if ('ok' in applied) {
        const stale = !applied.ok && applied.error.code === 'STALE_CHANGEDTICK' ? applied.error : null;
        if (stale && typeof stale.current_changedtick === 'number' && Array.isArray(stale.current_lines)) {
          tick = stale.current_changedtick;
          current = stale.current_lines as string[];
          continue;
        }
        return { outcome: applied, decision: 'offline', message: 'vimrelay: the review could not be applied' };
      }
      const changed = !sameLines(answer.lines, proposal.proposed);
      const review = changed
        ? reviewObject(id, 'accepted_with_changes', { user_changes: unifiedDiff(proposal.proposed, answer.lines, 'proposal', 'applied') })
        : reviewObject(id, 'accepted');
      const data: Record<string, unknown> = { ...proposal.result, buf: applied.buf, path: applied.path, changedtick: applied.changedtick, review };
      if ('total_lines' in data) data.total_lines = applied.total_lines;
      return { outcome: { ok: true, data }, decision: changed ? 'accepted_with_changes' : 'accepted', message: 'vimrelay: applied' };
    }
    const outcome = fail('REVIEW_CONFLICT', 'The user accepted the review, but the buffer kept changing while it was applied; nothing was changed.', { review: reviewObject(id, 'conflict') });
    return { outcome, decision: 'conflict', message: 'vimrelay: the buffer kept changing; nothing was applied' };
  }

  /** Drops settled reviews kept too long, and the oldest past KEPT. */
  #forgetOld(): void {
    const now = Date.now();
    for (const [id, entry] of this.#entries) {
      if (entry.outcome && (now - entry.settledAt > KEPT_MS || this.#entries.size > KEPT)) this.#entries.delete(id);
    }
  }
}

/** What a review's call answers while the user has not decided: the proposal, and the review's id. */
function pendingOutcome(entry: Entry): ToolOutcome {
  return { ok: true, data: { ...entry.proposal.result, review: reviewObject(entry.id, 'pending') } };
}

/** The audit decision of a settled review's outcome. */
function auditOf(outcome: ToolOutcome): AuditDecision {
  const review = outcome.ok ? outcome.data.review : outcome.error.review;
  const decision = typeof review === 'object' && review !== null && 'decision' in review ? String(review.decision) : 'offline';
  return `review:${decision}` as AuditDecision;
}

/** `settled`'s outcome if it settles within `ms` (and before `signal` aborts), else null. */
async function within(settled: Promise<ToolOutcome>, ms: number, signal: AbortSignal): Promise<ToolOutcome | null> {
  if (ms <= 0 || signal.aborted) return Promise.race([settled, Promise.resolve(null)]);
  let timer: NodeJS.Timeout | undefined;
  let onAbort = (): void => {};
  try {
    return await Promise.race([
      settled,
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), ms);
        onAbort = () => resolve(null);
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}

/** The header a review shows: who proposes what where, and what to type. */
function headerOf(call: ReviewCall, proposal: Proposal): string[] {
  const path = typeof proposal.result.path === 'string' ? proposal.result.path : `buffer ${numberOf(proposal.result.buf)}`;
  return [
    `vimrelay review: ${visible(call.client.label)} proposes ${call.tool.spec.name} in ${visible(path)}`,
    'Left: the buffer as it is. Right: the proposal, yours to change (do, :diffget, typing).',
    'ZA or :VimRelayAccept applies the right side as it stands; ZR or :VimRelayReject [reason] rejects; closing this tab rejects.',
  ];
}

function numberOf(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}
