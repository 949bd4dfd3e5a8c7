/**
 * Runs the calls the relay sends. The agent is the last line of defence (DESIGN.md "Trust and
 * authority"): it validates arguments again, treats the token's scopes as an upper bound, and
 * never applies one call id twice — a repeated id gets the remembered outcome, or nothing while
 * the first is still running. Only the outcomes of tools that change something are kept (they are
 * small: positions, counts, ticks); a repeated read simply reads again, so pages of text are not
 * held in memory. Editor tools run on the editor the call names; agent-level tools
 * (routing 'agent', e.g. connect_editor; their call names no editor) run against the editor
 * source itself, and are UNSUPPORTED when the dispatcher was given a bare lookup.
 */
import type { z } from 'zod';
import { checkScope, fail, LIMITS, parseArgs, toolByName, type Call, type ToolOutcome, type ToolSpec } from '../../protocol/index.ts';
import type { EditorSource } from '../editors/editor.ts';
import { runAgentTool, servesAgentTools, type AgentEditors } from '../tools/index.ts';

type CallMessage = z.infer<typeof Call>;

/** The editors a dispatcher runs calls on: a lookup, or the whole source (for agent-level tools too). */
export type DispatcherEditors = Pick<EditorSource, 'get'> | (Pick<EditorSource, 'get'> & AgentEditors);

export class Dispatcher {
  readonly #editors: DispatcherEditors;
  readonly #running = new Map<string, AbortController>();
  /** Outcomes of completed mutating calls by id, oldest first (Map keeps insertion order), bounded. */
  readonly #done = new Map<string, ToolOutcome>();

  constructor(editors: DispatcherEditors) {
    this.#editors = editors;
  }

  /** The outcome of `call`, or undefined when the same id is already running. */
  async handle(call: CallMessage): Promise<ToolOutcome | undefined> {
    const remembered = this.#done.get(call.id);
    if (remembered) return remembered;
    if (this.#running.has(call.id)) return undefined;
    const controller = new AbortController();
    this.#running.set(call.id, controller);
    const timer = setTimeout(() => controller.abort(new DeadlineExceeded()), call.deadline_ms);
    try {
      const outcome = await this.#run(call, controller.signal);
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

  async #run(call: CallMessage, signal: AbortSignal): Promise<ToolOutcome> {
    const spec = toolByName(call.tool);
    if (!spec) return fail('UNSUPPORTED', `This agent has no tool named ${call.tool}.`, { hint: 'Update the agent (vimrelay) to match the relay.' });
    const denied = checkScope(spec, call.scopes);
    if (denied) return denied;
    const parsed = parseArgs(spec, call.args);
    if (!parsed.ok) return parsed.outcome;
    let run: Promise<ToolOutcome>;
    if (spec.routing === 'agent') {
      if (!servesAgentTools(this.#editors)) return fail('UNSUPPORTED', `This agent does not serve ${spec.name}.`);
      run = runAgentTool(spec.name, this.#editors, parsed.args, signal);
    } else {
      const editor = this.#editors.get(call.editor);
      if (!editor) {
        return fail('EDITOR_OFFLINE', `Editor ${call.editor} is no longer attached to this agent.`);
      }
      run = editor.run(spec.name, parsed.args, signal);
    }
    const aborted = new Promise<ToolOutcome>((resolve) => {
      const onAbort = (): void => resolve(abortOutcome(signal.reason, spec));
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    return Promise.race([run, aborted]);
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
