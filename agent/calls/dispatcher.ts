/**
 * Runs the calls that reach this agent, from the relay (relay/connection.ts) and from local mode
 * (local/forward.ts) alike. The agent is the last line of defence (ARCHITECTURE.md "Trust
 * boundaries"): it validates arguments again, treats the token's scopes as an upper bound, applies
 * the user's policy (policy/enforce.ts: allow, ask in the editor, or deny) before the tool runs,
 * and never applies one call id twice — a repeated id gets the remembered outcome, or nothing while
 * the first is still running. Only the outcomes of tools that change something are kept (they are
 * small: positions, counts, ticks); a repeated read simply reads again, so pages of text are not
 * held in memory. Editor tools run on the editor the call names, through the tool's record
 * (editors/tools/); agent-level tools (catalog routing 'agent', e.g. connect_editor; their call
 * names no editor) run against the editor source itself, and are UNSUPPORTED when the dispatcher
 * was given a bare lookup. Every call, refused ones included, gets one audit line.
 *
 * The files an editor call addresses (which the policy needs before it runs) are remembered per
 * editor and way of addressing (the `paths` parameters: addressing and buffer arguments), so that
 * the next such call needs no round trip to learn them: the policy decides on the remembered ones
 * when they let the call run unasked (CallGuard.checkKnown), and the editor checks them as the
 * call runs (CallControl.expectPaths). When they changed (the user switched buffers, renamed a
 * file), nothing ran: the call is decided again on the files it addresses now, and run on those.
 */
import { anyToolByName, checkScope, decide, fail, LIMITS, parseArgs, permissionFor, REVIEW_LIMITS, reviewStatus, toolByName, type Surface, type ToolOutcome } from '../../protocol/index.ts';
import { CardKeys, type CardHolder } from '../decisions/card.ts';
import { answerFromCard, cardMeta, promptPending, type Deferred } from './card.ts';
import type { AuditDecision } from '../audit/log.ts';
import type { AssistantAsk } from '../decisions/book.ts';
import { abortedOutcome, CallCancelled, CallDeadline, NeedsReview, PathsChanged, type CallControl } from '../editors/call.ts';
import type { Editor, EditorSource } from '../editors/editor.ts';
import { pathsParams } from '../editors/paths.ts';
import { editorTool } from '../editors/tools/index.ts';
import type { CallGuard, GuardedCall } from '../policy/enforce.ts';
import { ReviewBook } from '../reviews/book.ts';
import type { Caller } from '../policy/types.ts';
import { ClientNames } from './client-names.ts';
import { runAgentTool, servesAgentTools, type AgentEditors } from '../agent-tools/index.ts';
import { callEnded } from './quiet-collect.ts';

/** One call as the agent runs it; the relay's wire `call` message carries exactly these fields. */
export interface CallRequest {
  /** Unique per call: a repeated id is never run twice. */
  readonly id: string;
  readonly tool: string;
  /** The agent's own id of the editor; '' for an agent-level tool. */
  readonly editor: string;
  readonly args: Record<string, unknown>;
  /** The client token's scopes: an upper bound. */
  readonly scopes: readonly string[];
  /** Who asks, for prompts and the audit log: the client id. */
  readonly client: string;
  /** The name the client goes by, when one came (calls/client-names.ts). */
  readonly client_name?: string;
  /** How long the call may take from now (ms); 0 or less: it arrived too late, and is not run. */
  readonly deadline_ms: number;
  /** The client renders the decision card (protocol/app/card.ts): the user may be asked there. */
  readonly ui?: true;
}

/** The editors a dispatcher runs calls on: a lookup, or the whole source (for agent-level tools too). */
export type DispatcherEditors = Pick<EditorSource, 'get'> | (Pick<EditorSource, 'get'> & AgentEditors);

/** Ways of addressing remembered per editor (the oldest goes first), and runs of a call whose files keep changing. */
const KNOWN_PATHS_PER_EDITOR = 32;
const MAX_PATH_CHANGES = 3;

export class Dispatcher {
  readonly #editors: DispatcherEditors;
  readonly #guard: CallGuard;
  readonly #running = new Map<string, AbortController>();
  /** Outcomes of completed mutating calls by id, oldest first (Map keeps insertion order), bounded. */
  readonly #done = new Map<string, ToolOutcome>();
  /** The files of the last call per editor and way of addressing (see the module header). */
  readonly #knownPaths = new WeakMap<Editor, Map<string, readonly string[]>>();
  /** The reviews of edits under review (reviews/book.ts), which review_status asks. */
  readonly #reviews: ReviewBook;
  /** The clients seen, by name: how prompts name each (calls/client-names.ts). */
  readonly #clients = new ClientNames();
  /** The decision card's secrets (decisions/card.ts). */
  readonly #card: CardKeys;
  /** Calls whose prompt answered pending in the card, by decision id, the oldest first (calls/card.ts). */
  readonly #deferred = new Map<string, Deferred>();

  /**
   * `options.reviewExpiryMs`: how long a review waits for the user (default REVIEW_LIMITS.expiryMs);
   * `options.cardHolder`: the account and device the decision card's secrets name (decisions/card.ts).
   */
  constructor(editors: DispatcherEditors, guard: CallGuard, options: { reviewExpiryMs?: number; cardHolder?: () => CardHolder } = {}) {
    this.#editors = editors;
    this.#guard = guard;
    this.#reviews = new ReviewBook((rec) => guard.record(rec), guard.decisions, options.reviewExpiryMs);
    this.#card = new CardKeys(options.cardHolder ?? (() => ({ account: '', device: '' })));
  }

  /**
   * The outcome of `call`, or undefined when the same id is already running. `extras.assistant`:
   * how its client's user can be asked about what it opens (CallControl.assistant). The id is registered
   * before the first await, so a `cancel` from the moment this returns reaches it.
   */
  async handle(call: CallRequest, extras: { assistant?: AssistantAsk } = {}): Promise<ToolOutcome | undefined> {
    const remembered = this.#done.get(call.id);
    if (remembered) return remembered;
    if (this.#running.has(call.id)) return undefined;
    const client = this.#clients.caller(call.client, call.client_name);
    if (call.deadline_ms <= 0) {
      // It reached the agent too late (it waited in a stalled agent's socket): the client has, or
      // is about to have, its answer, so nothing may start now.
      const outcome = fail('TIMEOUT', 'The call reached the agent after its deadline had passed, so nothing was done.', {
        hint: 'The agent was not running (stopped, or its machine asleep) while the call waited. Call list_editors, then retry if the call is still wanted.',
      });
      this.#guard.record({ client, editor: call.editor, tool: call.tool, args: call.args, decision: 'none', outcome, startedAt: Date.now() });
      return outcome;
    }
    const controller = new AbortController();
    this.#running.set(call.id, controller);
    const control: { signal: AbortSignal; deadline: number; assistant?: AssistantAsk } = { signal: controller.signal, deadline: Date.now() + call.deadline_ms, ...(extras.assistant ? { assistant: extras.assistant } : {}) };
    let timer = setTimeout(() => controller.abort(new CallDeadline()), call.deadline_ms);
    const startedAt = Date.now();
    const audit: Audited = { decision: 'none' };
    // Asked in the decision card, the call answers pending at once and runs on until the user
    // decides (calls/card.ts): its deadline then counts from the question's.
    let answerPending: (outcome: ToolOutcome) => void = () => undefined;
    const pending = new Promise<ToolOutcome>((resolve) => (answerPending = resolve));
    let deferred: ((outcome: Promise<ToolOutcome>) => void) | undefined;
    // A client that can be asked by elicitation is asked within the call (decisions/elicit.ts); the
    // card is for one that renders MCP Apps and cannot.
    const card = call.ui && !extras.assistant
      ? (decision: string): void => {
          clearTimeout(timer);
          control.deadline = Date.now() + REVIEW_LIMITS.expiryMs + call.deadline_ms;
          timer = setTimeout(() => controller.abort(new CallDeadline()), control.deadline - Date.now());
          deferred = (outcome) => this.#defer(decision, { tool: call.tool, editor: call.editor, outcome });
          answerPending(promptPending(call.tool, decision, cardMeta(this.#guard.decisions, this.#card, decision)));
        }
      : undefined;
    const done = (async (): Promise<ToolOutcome> => {
      try {
        const outcome = await this.#run(call, client, control, audit, startedAt, card);
        const by = audit.decidedBy === undefined ? {} : { decidedBy: audit.decidedBy };
        this.#guard.record({ client, editor: call.editor, tool: call.tool, args: call.args, decision: audit.decision, outcome, startedAt, ...by });
        if (changes(call)) this.#remember(call.id, outcome);
        return outcome;
      } finally {
        clearTimeout(timer);
        this.#running.delete(call.id);
        callEnded();
      }
    })();
    // Once it answered pending, nobody awaits `done` but review_status, which hears of a failure as INTERNAL.
    done.catch(() => undefined);
    const first = await Promise.race([done, pending]);
    deferred?.(done.catch((error: unknown) => fail('INTERNAL', `${call.tool} failed after the user decided: ${String(error)}`)));
    return first;
  }

  /** Keeps `entry` for review_status under decision id `id`, for as long as settled reviews are kept. */
  #defer(id: string, entry: Deferred): void {
    this.#deferred.set(id, entry);
    if (this.#deferred.size > LIMITS.rememberedCallIds) this.#deferred.delete(this.#deferred.keys().next().value as string);
  }

  /** Aborts a running call; its outcome becomes CANCELLED (or TIMEOUT past the deadline). */
  cancel(id: string): void {
    this.#running.get(id)?.abort(new CallCancelled());
  }

  /** Aborts every running call, e.g. when the link to the relay drops. */
  cancelAll(): void {
    for (const c of this.#running.values()) c.abort(new CallCancelled());
  }

  /** Runs the call; sets `audit` to how the policy treated it, and where the user decided. */
  async #run(call: CallRequest, client: Caller, control: CallControl, audit: Audited, startedAt: number, card: ((decision: string) => void) | undefined): Promise<ToolOutcome> {
    const spec = anyToolByName(call.tool);
    if (!spec) return fail('UNSUPPORTED', `This agent has no tool named ${call.tool}.`, { hint: 'Update the agent (vimrelay) to match the relay.' });
    // The token's scopes are an upper bound, checked before the policy.
    const denied = checkScope(spec, call.scopes, call.args);
    if (denied) {
      audit.decision = 'scope';
      return denied;
    }
    const parsed = parseArgs(spec, call.args);
    if (!parsed.ok) return parsed.outcome;
    const args = parsed.args;
    if (spec.name === decide.name) {
      // The user's answer from the card, which only its secret lets through; no policy applies.
      audit.decision = 'allow';
      return answerFromCard(this.#guard.decisions, this.#card, args);
    }
    if (spec.name === reviewStatus.name) {
      // It reads what the model's own edit proposed, in the editor it proposed it in.
      const editor = this.#editors.get(call.editor);
      if (!editor) return fail('EDITOR_OFFLINE', `Editor ${call.editor} is no longer attached to this agent.`);
      audit.decision = 'allow';
      const waitMs = typeof args.wait_ms === 'number' ? args.wait_ms : 0;
      const prompt = this.#deferred.get(String(args.id));
      if (prompt?.editor === call.editor) return this.#promptStatus(String(args.id), prompt, waitMs, control.signal);
      return this.#reviews.status(editor, String(args.id), waitMs, control.signal);
    }
    let run: (control: CallControl) => Promise<ToolOutcome>;
    let target: GuardedCall['target'] = null;
    let addressing = '';
    if (spec.routing === 'agent') {
      const agentEditors = this.#editors;
      if (!servesAgentTools(agentEditors)) return fail('UNSUPPORTED', `This agent does not serve ${spec.name}.`);
      run = (c) => runAgentTool(spec.name, agentEditors, args, c.signal);
    } else {
      const tool = editorTool(spec.name);
      if (!tool) return fail('UNSUPPORTED', `This agent cannot run ${spec.name} in an editor.`, { hint: 'Update the agent (vimrelay) to match the relay.' });
      const editor = this.#editors.get(call.editor);
      if (!editor) return fail('EDITOR_OFFLINE', `Editor ${call.editor} is no longer attached to this agent.`);
      target = { editor, tool };
      addressing = JSON.stringify(pathsParams(tool.addresses(args), args));
      run = (c) => editor.run(tool, args, c);
    }
    const guarded: GuardedCall = { client, spec, args, target, control, ...(card ? { card } : {}) };
    const known = target ? this.#knownPaths.get(target.editor)?.get(addressing) : undefined;
    let verdict = (known && (await this.#guard.checkKnown(guarded, known))) || (await this.#guard.check(guarded));
    const { signal } = control;
    const aborted = new Promise<ToolOutcome>((resolve) => {
      const onAbort = (): void => resolve(abortedOutcome(signal, spec.timeoutHint));
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    for (let changes = 0; ; changes++) {
      audit.decision = verdict.decision;
      if (verdict.decidedBy) audit.decidedBy = verdict.decidedBy;
      // Aborted while the guard waited on the editor: CANCELLED or TIMEOUT as for the tool itself
      // (and not started), except that a prompt nobody answered in time keeps its own denial.
      if (signal.aborted && (signal.reason instanceof CallCancelled || verdict.decision !== 'ask:timeout')) return abortedOutcome(signal, spec.timeoutHint);
      if (verdict.refusal) return verdict.refusal;
      if (target && verdict.paths) this.#rememberPaths(target.editor, addressing, verdict.paths);
      const after = verdict.after;
      // Edits a tool finds while it runs (lsp_rename's apply) are vetted by the same guard, and
      // the call runs on the files the guard decided on.
      const vet = verdict.vetEdits;
      const vetEdits = vet && (async (paths: readonly string[]): Promise<ToolOutcome | null> => {
        const vetted = await vet(paths);
        if (vetted?.review) throw new NeedsReview();
        // The audit line says what decided the edits when they needed deciding again.
        if (vetted) audit.decision = vetted.decision;
        if (vetted?.decidedBy) audit.decidedBy = vetted.decidedBy;
        return vetted?.refusal ?? null;
      });
      const withheldPaths = verdict.withheldPaths;
      const runControl: CallControl = { ...control, ...(vetEdits ? { vetEdits } : {}), ...(verdict.paths ? { expectPaths: verdict.paths } : {}), ...(withheldPaths ? { withheldPaths } : {}) };
      const review = verdict.review && target ? target : null;
      const started = review
        ? this.#reviews.start({ editor: review.editor, tool: review.tool, args, control: runControl, client, startedAt, surfaces: verdict.surfaces ?? [], ...(card ? { cardMeta: (id: string) => cardMeta(this.#guard.decisions, this.#card, id) } : {}) }).then((r) => {
            audit.decision = r.decision;
            if (r.decidedBy) audit.decidedBy = r.decidedBy;
            return r.outcome;
          })
        : run(runControl);
      const running = started.then((outcome) => (after ? after(outcome, control) : outcome));
      // The deadline may win the race below; a PathsChanged after it is then nobody's.
      running.catch(() => undefined);
      try {
        return await Promise.race([running, aborted]);
      } catch (error) {
        // The edits it found are to be reviewed: nothing changed, and it runs again under review.
        if (error instanceof NeedsReview) {
          verdict = await this.#guard.check({ ...guarded, args: { ...args, review: true } });
          continue;
        }
        if (!(error instanceof PathsChanged)) throw error;
        if (changes + 1 >= MAX_PATH_CHANGES) {
          return fail('EDITOR_ERROR', `The files ${spec.name} addresses kept changing while it was checked (the current buffer switching?), so it did not run.`, {
            hint: 'Retry the call; name the buffer (`buffer`) rather than relying on the current one.',
          });
        }
        verdict = (await this.#guard.checkKnown(guarded, error.paths)) ?? (await this.#guard.check(guarded));
      }
    }
  }

  /** What the call whose prompt answered pending under `id` answered, within `waitMs`; pending again until then. */
  async #promptStatus(id: string, prompt: Deferred, waitMs: number, signal: AbortSignal): Promise<ToolOutcome> {
    let timer: NodeJS.Timeout | undefined;
    const still = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), waitMs);
      signal.addEventListener('abort', () => resolve(null), { once: true });
    });
    try {
      const outcome = await Promise.race([prompt.outcome, still]);
      if (!outcome) return promptPending(prompt.tool, id, undefined);
      return outcome.ok ? { ok: true, data: { tool: prompt.tool, ...outcome.data } } : outcome;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Remembers the files a call on `editor` addressed `addressing` (see the module header). */
  #rememberPaths(editor: Editor, addressing: string, paths: readonly string[]): void {
    let known = this.#knownPaths.get(editor);
    if (!known) this.#knownPaths.set(editor, (known = new Map()));
    known.delete(addressing);
    known.set(addressing, paths);
    if (known.size > KNOWN_PATHS_PER_EDITOR) known.delete(known.keys().next().value as string);
  }

  #remember(id: string, outcome: ToolOutcome): void {
    this.#done.set(id, outcome);
    if (this.#done.size > LIMITS.rememberedCallIds) {
      const oldest = this.#done.keys().next().value;
      if (oldest !== undefined) this.#done.delete(oldest);
    }
  }
}

/** How the policy treated a call, for its audit line: its decision, and where the user made it. */
interface Audited {
  decision: AuditDecision;
  decidedBy?: Surface;
}

/** Whether a call can change something (its outcome is then remembered): not read-only, nor a read by its arguments (a preview). */
function changes(call: CallRequest): boolean {
  const spec = toolByName(call.tool);
  return !spec?.annotations.readOnlyHint && (spec === undefined || permissionFor(spec, call.args) !== 'read');
}
