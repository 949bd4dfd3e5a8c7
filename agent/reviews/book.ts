/**
 * The reviews this agent holds (README "Reviews"; DESIGN "Pending decisions"): an edit the policy
 * (or the model) sends to review is proposed without changing anything (Editor.propose), shown to
 * the user as a diff per file it changes in their editor (Editor.openReview), and made only where
 * they accept it, as they left it. The book alone settles each review, once; the model learns
 * what the user decided.
 *
 * Contract: `start` proposes the edit and opens its review, then waits for the user's decision up
 * to the call's `timeout_ms` (default: REVIEW_LIMITS.maxWaitMs), and never past the call's deadline
 * less LIMITS.promptMarginMs. Decided by then, the call's outcome is the decision's; else it is
 * the proposal's data with `review: {id, decision: "pending"}` (nothing changed), and the review
 * stays open until the user decides, the editor goes away, or it expires
 * (REVIEW_LIMITS.expiryMs), whichever comes first; `status` then gives the outcome, waiting for it
 * up to `wait_ms`. A proposal that changes nothing is answered at once, unreviewed.
 * Each file the edit changes is its own review in the editor, decided on its own, as it comes:
 * - accept: the accepted lines are merged with whatever the user typed in that buffer meanwhile
 *   (diff.ts `merge3`) and made in one call (Editor.applyReviewed), tick-guarded; a buffer that
 *   changed again between the read and the write is merged again (at most MERGE_TRIES times).
 *   `accepted`, or `accepted_with_changes` with `user_changes`, the diff from the proposal to what
 *   was applied; where the two changes meet, nothing is made in it: `conflict`.
 * - reject (closing the review is a reject, reason "closed"): `rejected`, with the reason.
 * - expiry: `expired`, and the editor says so; the editor gone: `offline`.
 * The outcome, once every file is decided: the tool's data with each accepted buffer as it is now
 * and `review` {decision: accepted, accepted_with_changes or, some files only, partly_accepted};
 * when nothing was applied, the error of why (REVIEW_REJECTED, REVIEW_CONFLICT, REVIEW_EXPIRED,
 * EDITOR_OFFLINE), carrying the same `review` object. An edit of several files lists each file's
 * decision in `review.files`. Every decision is audited through `record` (the call's own line
 * while the call waits, a line of its own after it answered "pending"), saying who decided.
 * Outcomes are kept for `status` (KEPT at most, KEPT_MS at most).
 *
 * A review is a pending decision of the agent (decisions/book.ts), answerable wherever the policy's
 * `ask_via` lets it be (the call's `surfaces`): its tabs open in the editor only when the editor is
 * one of them, and the relay's Pending page may accept (each undecided file as proposed) or reject
 * it. The decision book says who decided each file, once: an answer from elsewhere takes the
 * editor's tabs down with a one-line notice saying where it was decided, and an answer in the
 * editor after that changes nothing. A review pending on the relay's page carries the page's
 * address in `review.dashboard`.
 */
import { randomUUID } from 'node:crypto';
import { fail, LIMITS, permissionFor, REVIEW_LIMITS, type DecisionAnswer, type Surface, type ToolOutcome } from '../../protocol/index.ts';
import type { AuditDecision } from '../audit/log.ts';
import type { DecisionBook, PendingDecision, Said } from '../decisions/book.ts';
import { where } from '../decisions/elsewhere.ts';
import { reviewShown } from '../decisions/sections.ts';
import { EditorGone, isProposal, type Applied, type CallControl, type Proposal, type ProposedFile } from '../editors/call.ts';
import type { Editor } from '../editors/editor.ts';
import { visible } from '../../protocol/visible.ts';
import type { OpenReview, ReviewAnswer } from '../editors/reviews.ts';
import type { EditorTool } from '../editors/tools/tool.ts';
import type { CallRecord } from '../policy/enforce.ts';
import type { Caller } from '../policy/types.ts';
import { merge3, unifiedDiff } from './diff.ts';

/** How many times an accepted review is merged again when the buffer keeps changing. */
const MERGE_TRIES = 3;

/** Settled reviews kept for `status`, the oldest dropped first. */
const KEPT = 200;

/** How long a settled review is kept for `status` (ms). */
const KEPT_MS = 60 * 60_000;

/** What the user decided on one file. */
type FileDecision = 'accepted' | 'accepted_with_changes' | 'rejected' | 'conflict' | 'expired' | 'offline';

/** One file's decision, with what the model is told of it and what was applied. */
interface Decided {
  decision: FileDecision;
  reason?: string;
  userChanges?: string;
  /** The buffer after the accepted lines were made. */
  applied?: Applied;
  /** Where the user's changes met the proposal. */
  line?: number;
  /** The editor's failure while applying. */
  failure?: ToolOutcome;
}

/** One review call as the dispatcher hands it over. */
export interface ReviewCall {
  editor: Editor;
  tool: EditorTool;
  args: Record<string, unknown>;
  control: CallControl;
  client: Caller;
  /** When the call started (for the audit line of a later decision). */
  startedAt: number;
  /** Where the user may decide (the policy's ask_via, among the surfaces that reach them now). */
  surfaces: readonly Surface[];
  /**
   * The decision card's `_meta` for the review's decision (calls/card.ts), for a call whose client
   * renders it: the call then answers pending at once, so that the card shows.
   */
  cardMeta?: (decision: string) => Record<string, unknown> | undefined;
}

interface Entry {
  readonly id: string;
  readonly call: ReviewCall;
  readonly proposal: Proposal;
  /** The files the edit changes, each with its review in the editor (if it opened there) and, once decided, its decision. */
  readonly files: { readonly file: ProposedFile; open: OpenReview | null; decided: Decided | null }[];
  /** The review as a pending decision (decisions/book.ts), once its tabs have opened. */
  decision: PendingDecision | null;
  /** Settles once, with the final outcome. */
  readonly settled: Promise<ToolOutcome>;
  settle(outcome: ToolOutcome): void;
  outcome: ToolOutcome | null;
  /** Whether the call that started it has answered (then a decision gets an audit line of its own). */
  answered: boolean;
  settledAt: number;
  /** Ends the review undecided at its expiry. */
  expiry?: NodeJS.Timeout;
}

export class ReviewBook {
  readonly #record: (rec: CallRecord) => void;
  readonly #decisions: DecisionBook;
  readonly #entries = new Map<string, Entry>();
  readonly #expiryMs: number;

  /**
   * `record` audits a decision; `decisions`: the agent's pending decisions, where each review is
   * one; `expiryMs` (default REVIEW_LIMITS.expiryMs) ends an undecided review.
   */
  constructor(record: (rec: CallRecord) => void, decisions: DecisionBook, expiryMs: number = REVIEW_LIMITS.expiryMs) {
    this.#record = record;
    this.#decisions = decisions;
    this.#expiryMs = expiryMs;
  }

  /**
   * Runs `call` under review, as the module header says; resolves with its outcome and the audit
   * decision of the call; rejects only with PathsChanged (nothing ran).
   */
  async start(call: ReviewCall): Promise<{ outcome: ToolOutcome; decision: AuditDecision; decidedBy?: Surface }> {
    const { editor, tool, args, control } = call;
    if (call.surfaces.length === 0) {
      return {
        outcome: fail('PERMISSION_DENIED', `The policy sends ${tool.spec.name} to review, and none of the places it reviews on (ask_via) can reach the user now; nothing was changed.`, {
          hint: 'Ask the user to let the editor show reviews (vimrelay ask-via editor), or to allow the edit.',
        }),
        decision: 'review',
      };
    }
    const made = await editor.propose(tool, args, control, REVIEW_LIMITS.maxLines);
    if (!isProposal(made)) return { outcome: made, decision: 'review' };
    const changing = made.files.filter((f) => !sameLines(f.base, f.proposed));
    if (changing.length === 0) return { outcome: { ok: true, data: made.result }, decision: 'review' };
    const entry = this.#enter(randomUUID(), call, made, changing);
    try {
      if (call.surfaces.includes('editor')) {
        for (const [i, item] of entry.files.entries()) {
          const header = headerOf(call, item.file, i, entry.files.length);
          item.open = await editor.openReview(entry.files.length === 1 ? entry.id : `${entry.id}/${i + 1}`, { buf: item.file.buf, header, proposed: item.file.proposed }, control.signal);
        }
      }
    } catch (error) {
      this.#entries.delete(entry.id);
      await Promise.all(entry.files.map((item) => item.open?.close('')));
      if (error instanceof EditorGone) return { outcome: fail('EDITOR_OFFLINE', 'The editor went away before the review could open; nothing was changed.'), decision: 'offline' };
      return { outcome: fail('EDITOR_ERROR', `The editor could not open the review: ${String(error)}; nothing was changed.`), decision: 'review' };
    }
    entry.decision = this.#pending(entry);
    this.#follow(entry);
    // The card shows only with the call's result: a call whose client renders it answers at once.
    const card = call.cardMeta && call.surfaces.includes('assistant') ? call.cardMeta(entry.decision.id) : undefined;
    const waitMs = card ? 0 : Math.min(typeof args.timeout_ms === 'number' ? args.timeout_ms : REVIEW_LIMITS.maxWaitMs, control.deadline - LIMITS.promptMarginMs - Date.now());
    // Settled just as the wait ended: its outcome is still this call's.
    const outcome = (await within(entry.settled, waitMs, control.signal)) ?? entry.outcome;
    entry.answered = true;
    const decidedBy = entry.decision.decidedBy();
    if (outcome) return { outcome, decision: auditOf(outcome), ...(decidedBy === null ? {} : { decidedBy }) };
    return { outcome: { ...pendingOutcome(entry, this.#decisions), ...(card ? { meta: card } : {}) }, decision: 'review:pending' };
  }

  /** `entry` as a pending decision of the agent, answerable on the call's surfaces (see the module header). */
  #pending(entry: Entry): PendingDecision {
    const { call } = entry;
    const shown = reviewShown(entry.files.map((item) => item.file));
    return this.#decisions.open({
      kind: 'review',
      editor: call.editor.id,
      editorName: call.editor.info().name,
      client: call.client.label,
      tool: call.tool.spec.name,
      klass: permissionFor(call.tool.spec, call.args),
      paths: entry.files.flatMap((item) => (item.file.path === null ? [] : [item.file.path])),
      sections: shown.sections,
      // Accept only where every diff can be shown whole; reject always.
      offers: shown.whole ? ['accept', 'reject'] : ['reject'],
      expiresAt: Date.now() + this.#expiryMs,
      surfaces: call.surfaces,
      ...(call.control.assistant ? { assistant: call.control.assistant } : {}),
      onAnswer: (answer, by, parts) => this.#fromElsewhere(entry, answer, by, parts),
    });
  }

  /**
   * The outcome of review `id` on `editor` (review_status): what the edit would have answered, with
   * its `tool`; pending when the user has not decided within `waitMs`.
   */
  async status(editor: Editor, id: string, waitMs: number, signal: AbortSignal): Promise<ToolOutcome> {
    this.#forgetOld();
    const entry = this.#entries.get(id);
    if (!entry || entry.call.editor !== editor) return fail('REVIEW_NOT_FOUND', `No review with id ${id} is known in this editor.`);
    const outcome = entry.outcome ?? (await within(entry.settled, waitMs, signal)) ?? pendingOutcome(entry, this.#decisions);
    return outcome.ok ? { ok: true, data: { tool: entry.call.tool.spec.name, ...outcome.data } } : outcome;
  }

  #enter(id: string, call: ReviewCall, proposal: Proposal, changing: readonly ProposedFile[]): Entry {
    let resolve!: (outcome: ToolOutcome) => void;
    const settled = new Promise<ToolOutcome>((r) => (resolve = r));
    const entry: Entry = {
      id,
      call,
      proposal,
      files: changing.map((file) => ({ file, open: null, decided: null })),
      decision: null,
      settled,
      outcome: null,
      answered: false,
      settledAt: 0,
      settle: (outcome) => {
        if (entry.outcome) return;
        entry.outcome = outcome;
        entry.settledAt = Date.now();
        resolve(outcome);
        // The call's own audit line says it while it waits; after "pending", a line of its own.
        if (entry.answered) {
          const by = entry.decision?.decidedBy() ?? null;
          this.#record({ client: call.client, editor: call.editor.id, tool: call.tool.spec.name, args: call.args, decision: auditOf(outcome), outcome, startedAt: call.startedAt, ...(by === null ? {} : { decidedBy: by }) });
        }
      },
    };
    this.#entries.set(id, entry);
    this.#forgetOld();
    return entry;
  }

  /**
   * Waits for the user's decision on each file of `entry` in the editor (or its expiry, or the
   * editor's going), then settles it; decisions from elsewhere come through `#fromElsewhere`.
   */
  #follow(entry: Entry): void {
    const expiry = setTimeout(() => {
      for (const item of entry.files) {
        if (item.decided) continue;
        item.decided = { decision: 'expired' };
        void item.open?.expire();
      }
      this.#done(entry);
    }, this.#expiryMs);
    expiry.unref();
    entry.expiry = expiry;
    for (const [i, item] of entry.files.entries()) {
      const open = item.open;
      if (!open) continue;
      open.answer.then(
        async (answer) => {
          // Decided already: expired, or claimed by another surface (which closes the tab itself).
          if (item.decided || !entry.decision?.claim('editor', i).won) return;
          const decided = await this.#decide(entry.call, item.file, answer);
          await open.close(messageOf(decided));
          item.decided ??= decided;
          this.#done(entry);
        },
        () => {
          item.decided ??= { decision: 'offline' };
          this.#done(entry);
        },
      );
    }
  }

  /** Settles `entry` once every file is decided; it is then no longer pending anywhere. */
  #done(entry: Entry): void {
    if (!entry.files.every((item) => item.decided)) return;
    clearTimeout(entry.expiry);
    entry.decision?.close();
    entry.settle(outcomeOf(entry));
  }

  /**
   * `answer` from surface `by` (the relay's Pending page) for the files `parts` of `entry`, which
   * the decision book let it claim: each accepted as proposed or rejected, its tab (if any)
   * closed saying where it was decided. What came of it, for the page.
   */
  async #fromElsewhere(entry: Entry, answer: DecisionAnswer, by: Surface, parts: readonly number[]): Promise<Said> {
    const items = parts.flatMap((i) => entry.files[i] ?? []);
    const decided = await Promise.all(
      items.map(async (item) => {
        const reason = answer.kind === 'reject' ? answer.reason : undefined;
        const made = await this.#decide(entry.call, item.file, answer.kind === 'accept' ? { kind: 'accept', lines: [...item.file.proposed] } : { kind: 'reject', ...(reason ? { reason } : {}) });
        await item.open?.close(elsewhereMessage(made, by));
        item.decided ??= made;
        return made;
      }),
    );
    this.#done(entry);
    if (answer.kind !== 'accept') return 'rejected';
    return decided.some((d) => d.applied) ? 'accepted' : 'not_applied';
  }

  /** The user's `answer` on `file`, made so when it is an accept. */
  async #decide(call: ReviewCall, file: ProposedFile, answer: ReviewAnswer): Promise<Decided> {
    if (answer.kind === 'reject') {
      const reason = answer.reason?.trim() ?? '';
      return { decision: 'rejected', ...(reason ? { reason } : {}) };
    }
    const signal = AbortSignal.timeout(LIMITS.callDeadlineMs);
    let tick = file.baseTick;
    let current: readonly string[] = file.base;
    for (let tries = 0; tries < MERGE_TRIES; tries++) {
      const merged = merge3(file.base, current, answer.lines);
      if (!merged.ok) return { decision: 'conflict', line: merged.conflict.line };
      const applied = await call.editor.applyReviewed(file.buf, tick, merged.hunks, signal);
      if ('ok' in applied) {
        const stale = !applied.ok && applied.error.code === 'STALE_CHANGEDTICK' ? applied.error : null;
        if (stale && typeof stale.current_changedtick === 'number' && Array.isArray(stale.current_lines)) {
          tick = stale.current_changedtick;
          current = stale.current_lines as string[];
          continue;
        }
        return { decision: 'offline', failure: applied };
      }
      if (sameLines(answer.lines, file.proposed)) return { decision: 'accepted', applied };
      return { decision: 'accepted_with_changes', applied, userChanges: unifiedDiff(file.proposed, answer.lines, 'proposal', 'applied') };
    }
    return { decision: 'conflict' };
  }

  /** Drops settled reviews kept too long, and the oldest past KEPT. */
  #forgetOld(): void {
    const now = Date.now();
    for (const [id, entry] of this.#entries) {
      if (entry.outcome && (now - entry.settledAt > KEPT_MS || this.#entries.size > KEPT)) this.#entries.delete(id);
    }
  }
}

/** The one-line message the editor shows as a file's review closes. */
function messageOf(decided: Decided): string {
  switch (decided.decision) {
    case 'accepted':
    case 'accepted_with_changes':
      return 'vimrelay: applied';
    case 'rejected':
      return 'vimrelay: rejected; nothing was changed';
    case 'conflict':
      return decided.line === undefined ? 'vimrelay: the buffer kept changing; nothing was applied' : `vimrelay: the buffer changed near line ${decided.line} during the review; nothing was applied`;
    default:
      return 'vimrelay: the review could not be applied';
  }
}

/** The one-line message the editor shows as a file's review closes, decided `by` another surface. */
function elsewhereMessage(decided: Decided, by: Surface): string {
  switch (decided.decision) {
    case 'accepted':
    case 'accepted_with_changes':
      return `vimrelay: accepted ${where(by)}; applied`;
    case 'rejected':
      return `vimrelay: rejected ${where(by)}; nothing was changed`;
    case 'conflict':
      return `vimrelay: accepted ${where(by)}, but the buffer changed${decided.line === undefined ? '' : ` near line ${decided.line}`} during the review; nothing was applied`;
    default:
      return `vimrelay: accepted ${where(by)}, but the review could not be applied`;
  }
}

/** The outcome of `entry` once every file is decided (see the module header). */
function outcomeOf(entry: Entry): ToolOutcome {
  const { id, proposal, call } = entry;
  const decided = entry.files.map((item) => ({ file: item.file, d: item.decided ?? { decision: 'offline' as const } }));
  const multi = decided.length > 1;
  const files = decided.map(({ file, d }) => ({
    path: file.path,
    decision: d.decision,
    ...(d.reason === undefined ? {} : { reason: d.reason }),
    ...(d.userChanges === undefined ? {} : { user_changes: d.userChanges }),
  }));
  const applied = decided.filter(({ d }) => d.applied);
  if (applied.length === 0) {
    const [first] = decided;
    const d = first?.d;
    const failure = d?.failure;
    if (failure && !multi) return failure;
    const review = (decision: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ id, decision, ...extra, ...(multi ? { files } : {}) });
    const any = (decision: FileDecision): boolean => decided.some((x) => x.d.decision === decision);
    if (any('conflict')) {
      const line = decided.find((x) => x.d.line !== undefined)?.d.line;
      return fail('REVIEW_CONFLICT', `The user accepted the review, but the buffer had changed${line === undefined ? '' : ` near line ${line}`} where it edits; nothing was changed.`, {
        review: review('conflict'),
        ...(line === undefined ? {} : { line }),
      });
    }
    if (any('rejected')) {
      const reason = multi ? '' : (d?.reason ?? '');
      return fail('REVIEW_REJECTED', `The user rejected ${call.tool.spec.name}${reason ? `: ${reason}` : '.'} Nothing was changed.`, {
        review: review('rejected', reason ? { reason } : {}),
        ...(reason ? { hint: reason === 'closed' ? 'The user closed the review without accepting it. Ask them what they want before proposing it again.' : 'Follow the reason the user gave.' } : {}),
      });
    }
    if (any('expired')) return fail('REVIEW_EXPIRED', 'Nobody decided on the review in time, so it expired; nothing was changed.', { review: review('expired') });
    return fail('EDITOR_OFFLINE', 'The editor went away before the user decided on the review; nothing was changed.', { review: review('offline') });
  }
  const all = applied.length === decided.length;
  const changed = applied.some(({ d }) => d.decision === 'accepted_with_changes');
  const decision = !all ? 'partly_accepted' : changed ? 'accepted_with_changes' : 'accepted';
  const data: Record<string, unknown> = { ...proposal.result };
  const only = applied.length === 1 && !multi ? applied[0]?.d.applied : undefined;
  // The one buffer of a tool whose result names it (the edit tools run on a copy): as it is now.
  if (only) {
    for (const [key, value] of Object.entries({ buf: only.buf, path: only.path, changedtick: only.changedtick, total_lines: only.total_lines })) if (key in data) data[key] = value;
  }
  // Each file of the tool's own list that was applied (the lsp_* edits, of one file or several): its buffer as it is now.
  if (Array.isArray(data.files)) {
    data.files = (data.files as Record<string, unknown>[]).map((f) => {
      const hit = applied.find(({ file }) => file.path === f.path)?.d.applied;
      return hit ? { ...f, buf: hit.buf, changedtick: hit.changedtick } : f;
    });
  }
  if ('applied' in data) data.applied = true;
  const userChanges = !multi ? decided[0]?.d.userChanges : undefined;
  data.review = { id, decision, ...(userChanges === undefined ? {} : { user_changes: userChanges }), ...(multi ? { files } : {}) };
  return { ok: true, data };
}

/**
 * What a review's call answers while the user has not decided: the proposal, and the review's id;
 * with the address of the relay's Pending page when it may be decided there.
 */
function pendingOutcome(entry: Entry, decisions: DecisionBook): ToolOutcome {
  const page = entry.call.surfaces.includes('dashboard') && entry.decision ? decisions.pageUrl('dashboard') : null;
  const dashboard = page === null || !entry.decision ? {} : { dashboard: `${page}#d-${entry.decision.id}` };
  return { ok: true, data: { ...entry.proposal.result, review: { id: entry.id, decision: 'pending', ...dashboard } } };
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

/**
 * The header a review of `file` (file `i` of `count`) shows: who proposes what where, and what to
 * type. Its fixed lines fit an 80-column terminal, so that none of them breaks inside a word.
 */
function headerOf(call: ReviewCall, file: ProposedFile, i: number, count: number): string[] {
  const where = file.path === null ? `buffer ${file.buf}` : visible(file.path);
  const which = count > 1 ? ` (file ${i + 1} of ${count}, each decided on its own)` : '';
  return [
    `vimrelay review: ${visible(call.client.label)} proposes ${call.tool.spec.name} in ${where}${which}`,
    'Left: your buffer. Right: the proposal, yours to change (do, :diffget, typing).',
    'ZA or :VimRelayAccept applies the right side as it stands.',
    'ZR or :VimRelayReject [reason] rejects; closing this tab rejects too.',
  ];
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}
