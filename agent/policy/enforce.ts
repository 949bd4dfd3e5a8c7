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
 *   3. applies the `never_read` globs (never-read.ts): refuses calls that would read or edit such a
 *      file — before any prompt, so the user is never asked about what is refused anyway — and
 *      gives the filter their outcome must go through (taken again after a prompt, so that what
 *      it redacts is the text as it is then);
 *   4. decides (decide.ts): deny → PERMISSION_DENIED naming the rule, with a hint for the user's
 *      CLI; ask → the editor's prompt within the call's deadline: allow once runs it; allow
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
 * names: never_read refuses, the policy's path rules decide (deny refuses; ask asks, unless the
 * user already answered a prompt for this call); what it decided becomes the call's audit line.
 */
import { fail, LIMITS, permissionFor, type PermissionClass, type ToolOutcome, type ToolSpec } from '../../protocol/index.ts';
import { argsDigest, type AuditDecision, type AuditLog } from '../audit/log.ts';
import { blockedOutcome, EditorBlocked } from '../editors/blocked.ts';
import { abortedOutcome, EditorGone, isDeadline, type CallControl } from '../editors/call.ts';
import type { Editor } from '../editors/editor.ts';
import { NoSuchBuffer } from '../editors/paths.ts';
import type { EditorTool } from '../editors/tools/tool.ts';
import { decide, describeRule, type Verdict } from './decide.ts';
import { neverReadBefore, neverReadMatch, neverReadRefusal, type NeverReadCheck } from './never-read.ts';
import type { Policy, PolicyStore } from './file.ts';
import { escapeGlob } from './glob.ts';
import { previewOf } from './preview.ts';
import type { AskAnswer, AskRequest, Prompter, Rule } from './types.ts';

/** What a CallGuard needs. */
export interface CallGuardOptions {
  policy: PolicyStore;
  /** Where every call is recorded; null records nothing (a test that does not look at it). */
  audit: AuditLog | null;
  /** The user's home directory, for `~/` in path globs. */
  home?: string;
  /** Told when an audit line could not be written; the call itself goes on. Default: stderr. */
  onAuditError?: (err: unknown) => void;
}

/** One call as the guard sees it, its arguments already validated. */
export interface GuardedCall {
  client: string;
  spec: ToolSpec;
  args: Record<string, unknown>;
  /** The editor the call runs on and the tool's record; null for a call to the agent itself. */
  target: { editor: Editor; tool: EditorTool } | null;
  /** The call's signal (aborts at its deadline, or when it is cancelled) and deadline. */
  control: CallControl;
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
   * deny, the answer to its prompt, offline) and its refusal, if any.
   */
  vetEdits?: (paths: readonly string[]) => Promise<GuardResult | null>;
  /** The files the decision was made on (step 2); absent for a call to the agent itself. */
  paths?: readonly string[];
  /** What never_read has the call leave out when it runs (CallControl.withheldPaths). */
  withheldPaths?: readonly string[];
}

/** never_read's part of a guard's answer: the outcome's filter and what the call leaves out. */
function filterOf(check: Pick<GuardResult, 'after' | 'withheldPaths'>): Pick<GuardResult, 'after' | 'withheldPaths'> {
  return { ...(check.after ? { after: check.after } : {}), ...(check.withheldPaths ? { withheldPaths: check.withheldPaths } : {}) };
}

/** What the dispatcher records of one call, whatever became of it. */
export interface CallRecord {
  client: string;
  editor: string;
  tool: string;
  args: unknown;
  decision: AuditDecision;
  outcome: ToolOutcome;
  startedAt: number;
}

/** Applies the policy file to calls and records them in the audit log. */
export class CallGuard {
  readonly #opts: CallGuardOptions;
  /** Classes the user allowed "in this editor" in an editor they have not named, until it goes away. */
  readonly #session = new WeakMap<Editor, Set<PermissionClass>>();

  constructor(opts: CallGuardOptions) {
    this.#opts = opts;
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
    const verdict = decide(policy, { klass, editorName, chosenName, paths }, this.#opts.home);
    if (verdict.decision === 'deny') return mayAsk ? { decision: 'deny', refusal: policyDenied(call, editorName, verdict) } : null;
    const after = filterOf(before);
    if (verdict.decision === 'allow') return { decision: 'allow', refusal: null, ...after, vetEdits: (p) => this.#vetEdits(call, p, false), ...on };
    // A session allowance is the user's answer for this class in this editor: the files the call
    // finds it would edit are checked as after a prompt.
    if (call.target && this.#session.get(call.target.editor)?.has(klass)) return { decision: 'session', refusal: null, ...after, vetEdits: (p) => this.#vetEdits(call, p, true), ...on };
    if (!mayAsk) return null;
    const asked = await this.#ask(call, editorName, chosenName, paths);
    if (asked.refusal) return asked;
    // Checked again after the answer, so that what it reads to redact is the text as it is now.
    const again = await this.#neverRead(call, paths, policy);
    if (again.refusal) return again;
    return { ...asked, ...filterOf(again), vetEdits: (p) => this.#vetEdits(call, p, true), ...on };
  }

  /**
   * The files `changes` a running call would edit, checked as the header says; `asked`: the user
   * already allowed this call at a prompt. Null when the call's own decision stands (GuardResult.vetEdits).
   */
  async #vetEdits(call: GuardedCall, changes: readonly string[], asked: boolean): Promise<GuardResult | null> {
    if (!call.target || changes.length === 0) return null;
    const { editor } = call.target;
    const editorName = editor.info().name;
    try {
      const policy = this.#opts.policy.current();
      const paths = [...new Set((await Promise.all(changes.map((path) => editor.paths('path', { path }, call.control.signal)))).flat())];
      const hit = await neverReadMatch(paths, policy.never_read, this.#opts.home);
      if (hit) {
        const hint = 'This file is never edited; make the change without it, or ask the user to change never_read in policy.json.';
        return { decision: 'never_read', refusal: neverReadRefusal(hit, `${call.spec.name} would change it, so nothing was changed`, hint) };
      }
      const verdict = decide(policy, { klass: permissionFor(call.spec, call.args), editorName, chosenName: editor.chosenName(), paths }, this.#opts.home);
      if (verdict.decision === 'deny') return { decision: 'deny', refusal: policyDenied(call, editorName, verdict) };
      if (verdict.decision === 'ask' && !asked) return await this.#ask(call, editorName, editor.chosenName(), paths);
      return null;
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
      check = await neverReadBefore({ editor, tool, args: call.args, paths, globs: policy.never_read, ...(home === undefined ? {} : { home }) }, call.control);
    } catch (err) {
      if (err instanceof EditorGone) return editorGone(call, call.target.editor.info().name);
      if (err instanceof EditorBlocked) return { decision: 'none', refusal: blockedOutcome(err.waitingFor) };
      return { decision: 'never_read', refusal: fail('PERMISSION_DENIED', `The agent could not check ${call.spec.name} against never_read: ${String(err)}`) };
    }
    if (check.refusal) return { decision: 'never_read', refusal: check.refusal };
    return { decision: 'allow', refusal: null, ...filterOf(check) };
  }

  /** Appends the audit line for a finished call. */
  record(rec: CallRecord): void {
    if (!this.#opts.audit) return;
    try {
      this.#opts.audit.append({
        time: new Date(rec.startedAt).toISOString(),
        client: rec.client,
        editor: rec.editor,
        tool: rec.tool,
        args_digest: argsDigest(rec.args),
        decision: rec.decision,
        outcome: rec.outcome.ok ? 'ok' : rec.outcome.error.code,
        duration_ms: Date.now() - rec.startedAt,
      });
    } catch (err) {
      (this.#opts.onAuditError ?? ((e: unknown) => process.stderr.write(`vimrelay: cannot write the audit log: ${String(e)}\n`)))(err);
    }
  }

  async #ask(call: GuardedCall, editorName: string, chosenName: string | null, paths: readonly string[]): Promise<GuardResult> {
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
    const { editor, tool } = call.target;
    const preview = previewOf(tool.preview(call.args));
    const request: AskRequest = { client: call.client, tool: call.spec.name, klass, editor: editorName, chosenName, preview: preview.text, previewChars: preview.chars, paths };
    let answer: AskAnswer;
    const askedAt = Date.now();
    const promptDeadline = promptDeadlineOf(call.control.deadline, askedAt);
    try {
      answer = await askWithin(editor, request, call.control.signal, promptDeadline);
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
    switch (answer.kind) {
      case 'allow_once':
        return { decision: 'ask:allow_once', refusal: null };
      case 'allow_always': {
        if (chosenName === null) {
          const allowed = this.#session.get(editor) ?? new Set<PermissionClass>();
          allowed.add(klass);
          this.#session.set(editor, allowed);
          return { decision: 'ask:allow_session', refusal: null };
        }
        const rule: Rule = { klass, decision: 'allow', chosenName };
        try {
          this.#opts.policy.add(rule);
        } catch (err) {
          // The user allowed this call; only remembering it failed, which they should hear of.
          process.stderr.write(`vimrelay: cannot save the rule "${describeRule(rule)}": ${String(err)}\n`);
        }
        return { decision: 'ask:allow_always', refusal: null };
      }
      case 'deny': {
        const reason = answer.reason?.trim() ?? '';
        return {
          decision: 'ask:deny',
          refusal: fail('PERMISSION_DENIED', `The user denied ${call.spec.name} in ${editorName}${reason ? `: ${reason}` : '.'}`, {
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
        return {
          decision: 'ask:timeout',
          refusal: fail('PERMISSION_DENIED', `Nobody answered the prompt for ${call.spec.name} in ${editorName} within ${seconds} s, so it was denied.`, {
            hint: `The user was asked in the editor and did not answer within ${seconds} seconds. Ask them to watch the editor and retry, or to allow it: ${allowHint}`,
          }),
        };
      }
    }
  }
}

function policyDenied(call: GuardedCall, editorName: string, verdict: Verdict): ToolOutcome {
  const klass = permissionFor(call.spec, call.args);
  const rule = verdict.rule ? describeRule(verdict.rule) : `the default for ${klass}`;
  return fail('PERMISSION_DENIED', `The user's policy denies "${klass}" calls such as ${call.spec.name}${editorName ? ` in ${editorName}` : ''} (rule: ${rule}).`, {
    rule,
    hint: `Do without, or ask the user to change it: vimrelay allow ${klass}${verdict.rule?.editor ? ` --editor ${shellQuote(verdict.rule.editor)}` : ''}${verdict.rule?.chosenName ? ` --chosen-name ${shellQuote(verdict.rule.chosenName)}` : ''}${verdict.rule?.path ? ` --path ${shellQuote(verdict.rule.path)}` : ''}`,
  });
}

/** `text` as one word for a POSIX shell. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
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

/**
 * The prompt's answer; `cancelled` when the call's signal aborts for any reason but its deadline
 * (call.ts isDeadline), `timeout` when `deadline` (epoch ms) or the call's own deadline comes
 * first; rejects when it cannot be shown (EditorGone when the editor went away).
 */
async function askWithin(prompter: Prompter, request: AskRequest, callSignal: AbortSignal, deadline: number): Promise<AskAnswer> {
  const unanswered = (): AskAnswer => (callSignal.aborted && !isDeadline(callSignal.reason) ? { kind: 'cancelled' } : { kind: 'timeout' });
  const left = deadline - Date.now();
  if (left <= 0 || callSignal.aborted) return unanswered();
  const signal = AbortSignal.any([callSignal, AbortSignal.timeout(Math.ceil(left))]);
  let onAbort = (): void => {};
  const aborted = new Promise<AskAnswer>((resolve) => {
    onAbort = () => resolve({ kind: 'timeout' });
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const asked = prompter.ask(request, signal);
    // Once the deadline has won the race, a late rejection of the prompt has no one to tell.
    asked.catch(() => undefined);
    // The prompter answers `timeout` for any abort of `signal`; which one it was is told here.
    const answer = await Promise.race([asked, aborted]);
    return answer.kind === 'timeout' ? unanswered() : answer;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** The absolute paths the call addresses (none for a call to the agent itself); rejects when the editor cannot tell. */
async function pathsOf(call: GuardedCall): Promise<readonly string[]> {
  if (!call.target) return [];
  const { editor, tool } = call.target;
  return editor.paths(tool.addresses(call.args), call.args, call.control.signal);
}
