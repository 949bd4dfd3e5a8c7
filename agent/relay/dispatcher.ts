/**
 * Runs the calls the relay sends. The agent is the last line of defence (DESIGN.md "Trust and
 * authority"): it validates arguments again, treats the token's scopes as an upper bound, and
 * never applies one call id twice — a repeated id gets the remembered outcome, or nothing while
 * the first is still running. Only the outcomes of tools that change something are kept (they are
 * small: positions, counts, ticks); a repeated read simply reads again, so pages of text are not
 * held in memory. Editor tools run on the editor the call names; agent-level tools
 * (routing 'agent', e.g. connect_editor; their call names no editor) run against the editor
 * source itself, and are UNSUPPORTED when the dispatcher was given a bare lookup.
 * After the scope check and argument validation, the CallGuard applies the user's policy (issue 6:
 * allow, ask in the editor, or deny) before the tool runs; every call, refused ones included, gets
 * one audit line.
 */
import type { z } from 'zod';
import { checkScope, fail, LIMITS, parseArgs, toolByName, type Call, type ToolOutcome, type ToolSpec } from '../../protocol/index.ts';
import type { Editor, EditorSource } from '../editors/editor.ts';
import type { AuditDecision } from '../audit/log.ts';
import type { CallGuard } from '../policy/enforce.ts';
import { runAgentTool, servesAgentTools, type AgentEditors } from '../tools/index.ts';

type CallMessage = z.infer<typeof Call>;

/** The editors a dispatcher runs calls on: a lookup, or the whole source (for agent-level tools too). */
export type DispatcherEditors = Pick<EditorSource, 'get'> | (Pick<EditorSource, 'get'> & AgentEditors);

export class Dispatcher {
  readonly #editors: DispatcherEditors;
  readonly #guard: CallGuard;
  readonly #running = new Map<string, AbortController>();
  /** Outcomes of completed mutating calls by id, oldest first (Map keeps insertion order), bounded. */
  readonly #done = new Map<string, ToolOutcome>();

  constructor(editors: DispatcherEditors, guard: CallGuard) {
    this.#editors = editors;
    this.#guard = guard;
  }

  /** The outcome of `call`, or undefined when the same id is already running. */
  async handle(call: CallMessage): Promise<ToolOutcome | undefined> {
    const remembered = this.#done.get(call.id);
    if (remembered) return remembered;
    if (this.#running.has(call.id)) return undefined;
    const controller = new AbortController();
    this.#running.set(call.id, controller);
    const timer = setTimeout(() => controller.abort(new DeadlineExceeded()), call.deadline_ms);
    const startedAt = Date.now();
    const audit = { decision: 'none' as AuditDecision };
    try {
      const outcome = await this.#run(call, controller.signal, audit);
      this.#guard.record({ client: call.client, editor: call.editor, tool: call.tool, args: call.args, decision: audit.decision, outcome, startedAt });
      if (!toolByName(call.tool)?.annotations.readOnlyHint) this.#remember(call.id, outcome);
      return outcome;
    } finally {
      clearTimeout(timer);
      this.#running.delete(call.id);
    }
  }

  /** Aborts a running call; its outcome becomes CANCELLED (or TIMEOUT past the deadline). */
  cancel(id: string): void {
    this.#running.get(id)?.abort(new Cancelled());
  }

  /** Aborts every running call, e.g. when the link to the relay drops. */
  cancelAll(): void {
    for (const c of this.#running.values()) c.abort(new Cancelled());
  }

  /** Runs the call; sets `audit.decision` to how the policy treated it. */
  async #run(call: CallMessage, signal: AbortSignal, audit: { decision: AuditDecision }): Promise<ToolOutcome> {
    const spec = toolByName(call.tool);
    if (!spec) return fail('UNSUPPORTED', `This agent has no tool named ${call.tool}.`, { hint: 'Update the agent (vimrelay) to match the relay.' });
    // The token's scopes are an upper bound, checked before the policy (issue 6).
    const denied = checkScope(spec, call.scopes);
    if (denied) {
      audit.decision = 'scope';
      return denied;
    }
    const parsed = parseArgs(spec, call.args);
    if (!parsed.ok) return parsed.outcome;
    let run: () => Promise<ToolOutcome>;
    let editor: Editor | null = null;
    if (spec.routing === 'agent') {
      const agentEditors = this.#editors;
      if (!servesAgentTools(agentEditors)) return fail('UNSUPPORTED', `This agent does not serve ${spec.name}.`);
      run = () => runAgentTool(spec.name, agentEditors, parsed.args, signal);
    } else {
      const target = this.#editors.get(call.editor);
      if (!target) {
        return fail('EDITOR_OFFLINE', `Editor ${call.editor} is no longer attached to this agent.`);
      }
      editor = target;
      run = () => target.run(spec.name, parsed.args, signal);
    }
    const verdict = await this.#guard.check({ client: call.client, spec, args: parsed.args, editor, signal });
    audit.decision = verdict.decision;
    // Aborted while the guard waited on the editor: CANCELLED or TIMEOUT as for the tool itself
    // (and not started), except that a prompt nobody answered in time keeps its own denial.
    if (signal.aborted && (signal.reason instanceof Cancelled || verdict.decision !== 'ask:timeout')) return abortOutcome(signal.reason, spec);
    if (verdict.refusal) return verdict.refusal;
    const after = verdict.after;
    const running = after ? run().then((outcome) => after(outcome, signal)) : run();
    const aborted = new Promise<ToolOutcome>((resolve) => {
      const onAbort = (): void => resolve(abortOutcome(signal.reason, spec));
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    return Promise.race([running, aborted]);
  }

  #remember(id: string, outcome: ToolOutcome): void {
    this.#done.set(id, outcome);
    if (this.#done.size > LIMITS.rememberedCallIds) {
      const oldest = this.#done.keys().next().value;
      if (oldest !== undefined) this.#done.delete(oldest);
    }
  }
}

class DeadlineExceeded extends Error {}
class Cancelled extends Error {}

function abortOutcome(reason: unknown, spec: ToolSpec): ToolOutcome {
  if (reason instanceof DeadlineExceeded) {
    return fail('TIMEOUT', 'The editor did not answer before the deadline.', spec.timeoutHint === undefined ? {} : { hint: spec.timeoutHint });
  }
  return fail('CANCELLED', 'The call was cancelled before the editor answered.');
}
