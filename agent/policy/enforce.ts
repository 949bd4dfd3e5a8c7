/**
 * The agent's enforcement of its user's policy, for every call before the tool runs (README
 * "Permissions"; ARCHITECTURE.md "Trust boundaries": the agent is the last line of defence,
 * whatever the relay asks). The Dispatcher checks the token's scopes first (the upper bound: a scope the token lacks
 * is refused whatever the policy says), then calls `CallGuard.check`, which:
 *   1. reads the policy file as it is now (PolicyStore re-reads it when it changes; a broken file
 *      refuses every call — it never means "allow");
 *   2. asks the editor which files the call addresses (`Editor.paths`, none when it cannot tell;
 *      a buffer number that names no buffer is refused here with the tool's own BUFFER_NOT_FOUND,
 *      audited `none`: nobody is asked to allow a call that cannot run),
 *      or takes those the dispatcher expects (`checkKnown`: the files of the last call that
 *      addressed the same way; the editor checks them when the call runs, CallControl.expectPaths);
 *   3. applies vimrelay's own files (own-files.ts, whatever the policy says) and the `never_read`
 *      globs (never-read.ts): refuses calls that would read or edit such a file (and, for its own
 *      files, any that names one) — before any prompt, so the user is never asked about what is
 *      refused anyway — and
 *      gives the filter their outcome must go through (taken again after a prompt, so that what
 *      it redacts is the text as it is then);
 *   4. decides (decide.ts): deny → PERMISSION_DENIED naming the rule, with a hint for the user's
 *      CLI; ask → a prompt within the call's deadline (policy/ask.ts: in the editor, and on every
 *      other surface the policy's `ask_via` names that reaches the user, the first answer
 *      winning; `decidedBy` says where): allow once runs it; allow
 *      always also appends an allow rule for the name the user chose for that editor
 *      (`chosen_name`: never a rule for every editor, nor one that other editors sharing a
 *      directory name would match) or, in an editor the user has not named, lets that class
 *      through unasked in that editor until it goes away (a session allowance, never written;
 *      a deny in the policy still refuses); deny refuses with the user's reason; no answer
 *      before the deadline refuses with a hint; a call cancelled while its prompt is up is
 *      CANCELLED, audited `ask:cancelled`. Rules for every editor, or by a glob on names,
 *      come only from the CLI or the file. The prompt's own deadline comes before the call's
 *      (`promptDeadlineOf`), so that its denial, not a TIMEOUT, is what the client hears.
 * An editor that goes away meanwhile (while it says which files, or while its prompt is up) is
 * EDITOR_OFFLINE, decision `offline`: nothing ran, and no policy refused anything. One that
 * waits for its user (editors/blocked.ts) is EDITOR_BLOCKED, decision `none`, for the same reason.
 * It returns the refusal (or null), the decision for the audit log, which `record` appends, and
 * the paths it decided on, which the call must address when it runs (CallControl.expectPaths).
 * The class of a call is what `permissionFor` says for its arguments (lsp_rename: a preview
 * reads, applying writes). For a tool that finds the files it edits while it runs (lsp_rename's
 * apply), `vetEdits` checks those files before it changes them, as 2 to 4 check the files a call
 * names: never_read refuses, the policy decides each file (deny refuses); a file the policy asks
 * about is asked about, naming it, unless a prompt of this call showed it already or a session
 * allowance covers it (one it has a path `ask` rule of its own for is asked about all the same):
 * an answer at a prompt covers the files it showed, never those an edit reaches beyond them.
 * What it decided becomes the call's audit line.
 */
import { fail, LIMITS, permissionFor, REVIEW_LIMITS, SURFACES, type PermissionClass, type Surface, type ToolOutcome, type ToolSpec } from '../../protocol/index.ts';
import { argsDigest, type AuditDecision, type AuditLog } from '../audit/log.ts';
import { DecisionBook } from '../decisions/book.ts';
import { where } from '../decisions/elsewhere.ts';
import { blockedOutcome, EditorBlocked } from '../editors/blocked.ts';
import { abortedOutcome, EditorGone, type CallControl } from '../editors/call.ts';
import type { Editor } from '../editors/editor.ts';
import { NoSuchBuffer } from '../editors/paths.ts';
import { reviewable, type EditorTool } from '../editors/tools/tool.ts';
import { decide, describeRule, type Verdict } from './decide.ts';
import { neverReadBefore, neverReadRefusal, secretMatch, type NeverReadCheck } from './never-read.ts';
import type { OwnFiles } from './own-files.ts';
import type { Policy, PolicyStore } from './file.ts';
import { escapeGlob } from './glob.ts';
import { askUser, type Asked } from './ask.ts';
import { previewOf } from './preview.ts';
import type { AskRequest, Caller, Rule } from './types.ts';
import { shellQuote } from '../shell-quote.ts';

/** What a CallGuard needs. */
export interface CallGuardOptions {
  policy: PolicyStore;
  /** Where every call is recorded; null records nothing (a test that does not look at it). */
  audit: AuditLog | null;
  /** vimrelay's own files, out of every tool's reach whatever the policy says (own-files.ts). */
  own: OwnFiles;
  /** The user's home directory, for `~/` in path globs. */
  home?: string;
  /** Told when an audit line could not be written; the call itself goes on. Default: stderr. */
  onAuditError?: (err: unknown) => void;
  /** The agent's pending decisions (decisions/book.ts); default: a book of its own, which only the editor reaches. */
  decisions?: DecisionBook;
}

/** One call as the guard sees it, its arguments already validated. */
export interface GuardedCall {
  client: Caller;
  spec: ToolSpec;
  args: Record<string, unknown>;
  /** The editor the call runs on and the tool's record; null for a call to the agent itself. */
  target: { editor: Editor; tool: EditorTool } | null;
  /** The call's signal (aborts at its deadline, or when it is cancelled) and deadline. */
  control: CallControl;
  /**
   * Present for a call whose client renders the decision card (calls/card.ts): the user may be
   * asked there too, and this is told the decision's id once the question is open.
   */
  card?: (decision: string) => void;
}

/** The guard's answer: `refusal` null lets the call run, and its outcome then goes through `after`. */
export interface GuardResult {
  refusal: ToolOutcome | null;
  decision: AuditDecision;
  /** never_read's filter of the outcome (never_read.ts), before it leaves the agent. */
  after?: (outcome: ToolOutcome, control: CallControl) => Promise<ToolOutcome>;
  /**
   * The check of files the call finds it would edit (CallControl.vetEdits); see the header. Null
   * when nothing needed deciding again; else the decision it took (for the audit log: never_read,
   * deny, the answer to its prompt, offline) and its refusal, if any; or `review` when a file it
   * would edit is to be reviewed, for a call not under review (it runs again under review).
   */
  vetEdits?: (paths: readonly string[]) => Promise<GuardResult | null>;
  /** The files the decision was made on (step 2); absent for a call to the agent itself. */
  paths?: readonly string[];
  /** What never_read has the call leave out when it runs (CallControl.withheldPaths). */
  withheldPaths?: readonly string[];
  /** The call runs under review: shown to the user as a diff before it changes anything (README "Reviews"). */
  review?: true;
  /** Where the user may decide (the policy's ask_via, among the surfaces that reach them now), for a call under review. */
  surfaces?: readonly Surface[];
  /** Where the user answered the call's prompt. */
  decidedBy?: Surface;
}

/** never_read's part of a guard's answer: the outcome's filter and what the call leaves out. */
function filterOf(check: Pick<GuardResult, 'after' | 'withheldPaths'>): Pick<GuardResult, 'after' | 'withheldPaths'> {
  return { ...(check.after ? { after: check.after } : {}), ...(check.withheldPaths ? { withheldPaths: check.withheldPaths } : {}) };
}

/** What the dispatcher records of one call, whatever became of it. */
export interface CallRecord {
  client: Caller;
  editor: string;
  tool: string;
  args: unknown;
  decision: AuditDecision;
  outcome: ToolOutcome;
  startedAt: number;
  /** Where the user decided, for a call they were asked about or reviewed. */
  decidedBy?: Surface;
}

/** Applies the policy file to calls and records them in the audit log. */
export class CallGuard {
  readonly #opts: CallGuardOptions;
  /** Classes the user allowed "in this editor" in an editor they have not named, until it goes away. */
  readonly #session = new WeakMap<Editor, Set<PermissionClass>>();
  /** Every prompt and review waiting for the user (decisions/book.ts), which the relay link publishes. */
  readonly decisions: DecisionBook;

  constructor(opts: CallGuardOptions) {
    this.#opts = opts;
    this.decisions = opts.decisions ?? new DecisionBook();
  }

  /**
   * Where the user may be asked now: the policy's `ask_via` (every surface when it names none),
   * among the surfaces that reach them (the editor, the relay's page while linked to a relay, and
   * the assistant of a call whose client can be asked: `control.assistant` by elicitation, or
   * `card`, the decision card of a client that renders MCP Apps).
   */
  surfaces(policy: Policy = this.#opts.policy.current(), control?: CallControl, card = false): Surface[] {
    const wanted = policy.askVia ?? SURFACES;
    const reach = this.decisions.available();
    if ((control?.assistant || card) && !reach.includes('assistant')) reach.push('assistant');
    return reach.filter((s) => wanted.includes(s));
  }

  /** Decides `call` as the header says, asking the editor which files it addresses; resolves, never rejects. */
  async check(call: GuardedCall): Promise<GuardResult> {
    const policy = this.#policy();
    if (!('rules' in policy)) return policy;
    const editorName = call.target?.editor.info().name ?? '';
    let paths: readonly string[];
    try {
      paths = await pathsOf(call);
    } catch (err) {
      if (err instanceof EditorGone) return editorGone(call, editorName);
      // Nothing to decide: the call cannot run (and nobody is asked to allow it).
      if (err instanceof NoSuchBuffer) return { decision: 'none', refusal: err.outcome };
      if (err instanceof EditorBlocked) return { decision: 'none', refusal: blockedOutcome(err.waitingFor) };
      // Without the paths neither path rules nor never_read can be applied: refuse, never guess.
      return { decision: 'deny', refusal: fail('PERMISSION_DENIED', `The agent could not tell which files ${call.spec.name} addresses: ${String(err)}`) };
    }
    return this.#judge(call, policy, paths, true);
  }

  /**
   * Decides `call` on the files the dispatcher expects it to address (`paths`, which the editor
   * checks as the call runs), when that lets it run without a prompt; null when it would refuse
   * or ask: the dispatcher then calls `check`, so that no refusal or prompt rests on an
   * expectation.
   */
  async checkKnown(call: GuardedCall, paths: readonly string[]): Promise<GuardResult | null> {
    const policy = this.#policy();
    if (!('rules' in policy)) return policy;
    return this.#judge(call, policy, paths, false);
  }

  /** The policy as it is now, or the refusal of every call while its file is invalid. */
  #policy(): Policy | GuardResult {
    try {
      return this.#opts.policy.current();
    } catch (err) {
      return {
        decision: 'deny',
        refusal: fail('PERMISSION_DENIED', 'The agent refuses every call while its policy file is invalid.', {
          hint: `The user must fix the policy file (${(err as Error).message.split('\n')[0] ?? ''}); \`vimrelay rules\` shows the problem.`,
        }),
      };
    }
  }

  /** Steps 3 and 4 of the header over `paths`; with `mayAsk` false, null where it would refuse or ask. */
  async #judge(call: GuardedCall, policy: Policy, paths: readonly string[], mayAsk: true): Promise<GuardResult>;
  async #judge(call: GuardedCall, policy: Policy, paths: readonly string[], mayAsk: boolean): Promise<GuardResult | null>;
  async #judge(call: GuardedCall, policy: Policy, paths: readonly string[], mayAsk: boolean): Promise<GuardResult | null> {
    const klass = permissionFor(call.spec, call.args);
    const editorName = call.target?.editor.info().name ?? '';
    const chosenName = call.target?.editor.chosenName() ?? null;
    const on = call.target ? { paths } : {};
    // never_read first: a call it refuses is refused whatever the user would answer, so
    // never asked about.
    const before = await this.#neverRead(call, paths, policy);
    if (before.refusal) return mayAsk ? before : null;
    const verdict = reviewed(call, decide(policy, { klass, editorName, chosenName, paths }, this.#opts.home));
    if (verdict.decision === 'deny') return mayAsk ? { decision: 'deny', refusal: policyDenied(call, editorName, verdict) } : null;
    const after = filterOf(before);
    // The review is the user's answer for every file it shows: none is asked about again.
    if (verdict.decision === 'review') return { decision: 'review', refusal: null, review: true, surfaces: this.surfaces(policy, call.control, call.card !== undefined), ...after, vetEdits: (p) => this.#vetEdits(call, p, [], true), ...on };
    if (verdict.decision === 'allow') return { decision: 'allow', refusal: null, ...after, vetEdits: (p) => this.#vetEdits(call, p, [], false), ...on };
    // A session allowance is the user's answer for this class in this editor: of the files the call
    // finds it would edit, only those with an `ask` rule of their own are asked about (vetEdits).
    if (call.target && this.#session.get(call.target.editor)?.has(klass)) return { decision: 'session', refusal: null, ...after, vetEdits: (p) => this.#vetEdits(call, p, [], false), ...on };
    if (!mayAsk) return null;
    const asked = await this.#ask(call, policy, editorName, chosenName, paths);
    if (asked.refusal) return asked;
    // Checked again after the answer, so that what it reads to redact is the text as it is now.
    const again = await this.#neverRead(call, paths, policy);
    if (again.refusal) return again;
    return { ...asked, ...filterOf(again), vetEdits: (p) => this.#vetEdits(call, p, paths, false), ...on };
  }

  /**
   * The files `changes` a running call would edit, checked as the header says; `shown`: the files
   * a prompt of this call showed (none without one); `reviewing`: the call runs under review, which
   * shows every file it changes. Null when the call's own decision stands (GuardResult.vetEdits);
   * `review` when a file it would edit is to be reviewed and the call is not: it runs again under review.
   */
  async #vetEdits(call: GuardedCall, changes: readonly string[], shown: readonly string[], reviewing: boolean): Promise<GuardResult | null> {
    if (!call.target || changes.length === 0) return null;
    const { editor } = call.target;
    const editorName = editor.info().name;
    try {
      const policy = this.#opts.policy.current();
      const paths = [...new Set((await Promise.all(changes.map((path) => editor.paths('path', { path }, call.control.signal)))).flat())];
      const home = this.#opts.home;
      const hit = await secretMatch(paths, { own: this.#opts.own, globs: policy.never_read, ...(home === undefined ? {} : { home }) });
      if (hit) {
        const hint = 'This file is never edited; make the change without it, or ask the user to change never_read in policy.json.';
        return { decision: 'own' in hit ? 'own_file' : 'never_read', refusal: neverReadRefusal(hit, `${call.spec.name} would change it, so nothing was changed`, hint) };
      }
      const klass = permissionFor(call.spec, call.args);
      const query = { klass, editorName, chosenName: editor.chosenName() };
      const verdict = reviewed(call, decide(policy, { ...query, paths }, this.#opts.home));
      if (verdict.decision === 'deny') return { decision: 'deny', refusal: policyDenied(call, editorName, verdict) };
      if (reviewing) return null;
      if (verdict.decision === 'review') return { decision: 'review', refusal: null, review: true };
      // A session allowance (given before this call, or at its prompt) covers the class in this
      // editor, not a file the policy has an `ask` rule of its own for.
      const session = this.#session.get(editor)?.has(klass) ?? false;
      const unseen = paths.filter((path) => {
        if (shown.includes(path)) return false;
        const own = decide(policy, { ...query, paths: [path] }, this.#opts.home);
        return own.decision === 'ask' && !(session && own.rule?.path === undefined);
      });
      if (unseen.length === 0) return null;
      const note = shown.length > 0 ? 'The edit also changes the files named above (path:), which the first prompt did not show.' : 'The edit changes the files named above (path:), which the policy asks about.';
      return await this.#ask(call, policy, editorName, editor.chosenName(), unseen, note);
    } catch (err) {
      if (err instanceof EditorGone) return editorGone(call, editorName);
      // Nothing to decide: the call cannot run (and nobody is asked to allow it).
      if (err instanceof NoSuchBuffer) return { decision: 'none', refusal: err.outcome };
      if (err instanceof EditorBlocked) return { decision: 'none', refusal: blockedOutcome(err.waitingFor) };
      return { decision: 'deny', refusal: fail('PERMISSION_DENIED', `The agent could not check the files ${call.spec.name} would change: ${String(err)}; nothing was changed.`) };
    }
  }

  /** The never_read check of `call`: its refusal, or the filter its outcome goes through. */
  async #neverRead(call: GuardedCall, paths: readonly string[], policy: Policy): Promise<GuardResult> {
    if (!call.target) return { decision: 'allow', refusal: null };
    let check: NeverReadCheck;
    try {
      const home = this.#opts.home;
      const { editor, tool } = call.target;
      check = await neverReadBefore({ editor, tool, args: call.args, paths, own: this.#opts.own, globs: policy.never_read, ...(home === undefined ? {} : { home }) }, call.control);
    } catch (err) {
      if (err instanceof EditorGone) return editorGone(call, call.target.editor.info().name);
      if (err instanceof EditorBlocked) return { decision: 'none', refusal: blockedOutcome(err.waitingFor) };
      return { decision: 'never_read', refusal: fail('PERMISSION_DENIED', `The agent could not check ${call.spec.name} against never_read: ${String(err)}`) };
    }
    if (check.refusal) return { decision: check.decision, refusal: check.refusal };
    return { decision: 'allow', refusal: null, ...filterOf(check) };
  }

  /** Appends the audit line for a finished call. */
  record(rec: CallRecord): void {
    if (!this.#opts.audit) return;
    try {
      this.#opts.audit.append({
        time: new Date(rec.startedAt).toISOString(),
        client: rec.client.id,
        ...(rec.client.name === undefined ? {} : { client_name: rec.client.name }),
        editor: rec.editor,
        tool: rec.tool,
        args_digest: argsDigest(rec.args),
        decision: rec.decision,
        outcome: rec.outcome.ok ? 'ok' : rec.outcome.error.code,
        duration_ms: Date.now() - rec.startedAt,
        ...(rec.decidedBy ? { decided_by: rec.decidedBy } : {}),
      });
    } catch (err) {
      (this.#opts.onAuditError ?? ((e: unknown) => process.stderr.write(`vimrelay: cannot write the audit log: ${String(e)}\n`)))(err);
    }
  }

  /**
   * Asks the user about `call` on `paths` (its preview, and `note` below it), wherever the policy
   * lets it be answered (policy/ask.ts); the answer as a GuardResult, saying where it was given.
   */
  async #ask(call: GuardedCall, policy: Policy, editorName: string, chosenName: string | null, paths: readonly string[], note?: string): Promise<GuardResult> {
    const klass = permissionFor(call.spec, call.args);
    const only = chosenName !== null ? ` --chosen-name ${shellQuote(chosenName)}` : editorName ? ` --editor ${shellQuote(escapeGlob(editorName))}` : '';
    const allowHint = `vimrelay allow ${klass}${only}`;
    // A call to the agent itself has no editor to ask in.
    if (!call.target) {
      return {
        decision: 'deny',
        refusal: fail('PERMISSION_DENIED', `The policy asks the user before "${klass}" calls, and ${call.spec.name} runs in no editor that could ask.`, {
          hint: `Ask the user to allow it: ${allowHint}`,
        }),
      };
    }
    const surfaces = this.surfaces(policy, call.control, call.card !== undefined);
    if (surfaces.length === 0) {
      return {
        decision: 'deny',
        refusal: fail('PERMISSION_DENIED', `The policy asks the user before "${klass}" calls, and none of the places it asks on (ask_via: ${(policy.askVia ?? []).join(', ')}) can reach the user now.`, {
          hint: `Ask the user to allow it (${allowHint}), or to let the editor ask: vimrelay ask-via editor`,
        }),
      };
    }
    const { editor, tool } = call.target;
    const preview = previewOf([...tool.preview(call.args), ...(note === undefined ? [] : ['', note])]);
    const request: AskRequest = { client: call.client.label, tool: call.spec.name, klass, editor: editorName, chosenName, preview: preview.text, previewChars: preview.chars, paths };
    let asked: Asked;
    const askedAt = Date.now();
    // Asked in the card, the call answers pending at once and the question waits as long as a review.
    const inCard = call.card !== undefined && surfaces.includes('assistant');
    const promptDeadline = inCard ? askedAt + REVIEW_LIMITS.expiryMs : promptDeadlineOf(call.control.deadline, askedAt);
    try {
      asked = await askUser({ editor, request, surfaces, book: this.decisions, callSignal: call.control.signal, deadline: promptDeadline, ...(call.control.assistant ? { assistant: call.control.assistant } : {}), ...(inCard && call.card ? { onCard: call.card } : {}) });
    } catch (err) {
      if (err instanceof EditorGone) return editorGone(call, editorName);
      // Nothing to decide: the call cannot run (and nobody is asked to allow it).
      if (err instanceof NoSuchBuffer) return { decision: 'none', refusal: err.outcome };
      // The editor waits for its user: nobody could see the prompt, and nobody refused anything.
      if (err instanceof EditorBlocked) return { decision: 'none', refusal: blockedOutcome(err.waitingFor) };
      return {
        decision: 'deny',
        refusal: fail('PERMISSION_DENIED', `The policy asks the user before "${klass}" calls, and ${editorName} could not show the prompt: ${String(err)}`, {
          hint: `Ask the user to allow it: ${allowHint}`,
        }),
      };
    }
    const { answer } = asked;
    const by = asked.by === undefined ? {} : { decidedBy: asked.by };
    switch (answer.kind) {
      case 'allow_once':
        return { decision: 'ask:allow_once', refusal: null, ...by };
      case 'allow_always': {
        if (chosenName === null) {
          const allowed = this.#session.get(editor) ?? new Set<PermissionClass>();
          allowed.add(klass);
          this.#session.set(editor, allowed);
          return { decision: 'ask:allow_session', refusal: null, ...by };
        }
        const rule: Rule = { klass, decision: 'allow', chosenName };
        try {
          this.#opts.policy.add(rule);
        } catch (err) {
          // The user allowed this call; only remembering it failed, which they should hear of.
          process.stderr.write(`vimrelay: cannot save the rule "${describeRule(rule)}": ${String(err)}\n`);
        }
        return { decision: 'ask:allow_always', refusal: null, ...by };
      }
      case 'deny': {
        const reason = answer.reason?.trim() ?? '';
        const place = asked.by === undefined || asked.by === 'editor' ? `in ${editorName}` : where(asked.by);
        return {
          decision: 'ask:deny',
          ...by,
          refusal: fail('PERMISSION_DENIED', `The user denied ${call.spec.name} ${place}${reason ? `: ${reason}` : '.'}`, {
            ...(reason ? { reason } : {}),
            hint: reason ? 'Follow the reason the user gave.' : 'The user said no; do not retry this call unless they ask for it.',
          }),
        };
      }
      case 'cancelled':
        // Nobody refused anything: the call's outcome is its cancellation, as for a call
        // cancelled anywhere else (call.ts abortedOutcome).
        return { decision: 'ask:cancelled', refusal: abortedOutcome(call.control.signal) };
      case 'timeout': {
        const seconds = Math.max(0, Math.round((promptDeadline - askedAt) / 1000));
        const places = surfaces.map((s) => (s === 'editor' ? `in ${editorName}` : where(s))).join(' or ');
        return {
          decision: 'ask:timeout',
          refusal: fail('PERMISSION_DENIED', `Nobody answered the prompt for ${call.spec.name} ${places} within ${seconds} s, so it was denied.`, {
            hint: `The user was asked ${places} and did not answer within ${seconds} seconds. Ask them to watch for it and retry, or to allow it: ${allowHint}`,
          }),
        };
      }
    }
  }
}

/**
 * The policy's verdict for what `call` is (README "Reviews"): a tool whose edit can be reviewed
 * goes to review when the policy says `review` or the model asks (`review: true`), unless the
 * policy denies it; a call that cannot be reviewed runs as allowed when the policy says `review`:
 * it only moves the user through the buffer's history or shows decorations (undo, redo,
 * set_cursor, the decoration tools: nothing to review), or is a preview.
 */
function reviewed(call: GuardedCall, verdict: Verdict): Verdict {
  const tool = call.target?.tool;
  if (tool && reviewable(tool, call.args)) return verdict.decision !== 'deny' && call.args.review === true ? { ...verdict, decision: 'review' } : verdict;
  if (verdict.decision !== 'review') return verdict;
  return { ...verdict, decision: 'allow' };
}

function policyDenied(call: GuardedCall, editorName: string, verdict: Verdict): ToolOutcome {
  const klass = permissionFor(call.spec, call.args);
  const rule = verdict.rule ? describeRule(verdict.rule) : `the default for ${klass}`;
  return fail('PERMISSION_DENIED', `The user's policy denies "${klass}" calls such as ${call.spec.name}${editorName ? ` in ${editorName}` : ''} (rule: ${rule}).`, {
    rule,
    hint: `Do without, or ask the user to change it: vimrelay allow ${klass}${verdict.rule?.editor ? ` --editor ${shellQuote(verdict.rule.editor)}` : ''}${verdict.rule?.chosenName ? ` --chosen-name ${shellQuote(verdict.rule.chosenName)}` : ''}${verdict.rule?.path ? ` --path ${shellQuote(verdict.rule.path)}` : ''}`,
  });
}

/**
 * When a prompt asked at `now` closes unanswered: LIMITS.promptMarginMs before the call's
 * `deadline`, or a quarter of the time left when that is shorter (a call with a short deadline
 * still shows its prompt), so that the denial is the call's answer, not a TIMEOUT.
 */
function promptDeadlineOf(deadline: number, now: number): number {
  const left = Math.max(0, deadline - now);
  return deadline - Math.min(LIMITS.promptMarginMs, Math.floor(left / 4));
}

/** The refusal of a call whose editor went away before the policy could decide. */
function editorGone(call: GuardedCall, editorName: string): GuardResult {
  return {
    decision: 'offline',
    refusal: fail('EDITOR_OFFLINE', `Editor ${editorName} went away (it exited, or its connection closed) before ${call.spec.name} could run; nothing was done.`),
  };
}

/** The absolute paths the call addresses (none for a call to the agent itself); rejects when the editor cannot tell. */
async function pathsOf(call: GuardedCall): Promise<readonly string[]> {
  if (!call.target) return [];
  const { editor, tool } = call.target;
  return editor.paths(tool.addresses(call.args), call.args, call.control.signal);
}
