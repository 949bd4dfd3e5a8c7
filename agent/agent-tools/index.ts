/**
 * The agent-level tools (catalog routing 'agent'): they act on the agent itself, not on one
 * editor, and run against its editor source. An explicit list, as for the editor tools.
 */
import { connectEditor, fail, type ToolInput, type ToolOutcome } from '../../protocol/index.ts';
import type { EditorSource } from '../editors/editor.ts';
import { runConnectEditor } from './connect-editor.ts';

/** What the agent-level tools need of the agent's editor source. */
export type AgentEditors = Pick<EditorSource, 'list' | 'candidates' | 'attach'>;

type AgentTool = (editors: AgentEditors, args: Record<string, unknown>, signal: AbortSignal) => Promise<ToolOutcome>;

const AGENT_TOOLS: ReadonlyMap<string, AgentTool> = new Map<string, AgentTool>([
  // The cast is sound: the dispatcher validated the arguments against connectEditor.input.
  [connectEditor.name, (editors, args, signal) => runConnectEditor(editors, args as ToolInput<typeof connectEditor>, signal)],
]);

/** Whether `editors` can serve the agent-level tools (a bare editor lookup cannot). */
export function servesAgentTools<T extends object>(editors: T): editors is T & AgentEditors {
  return 'list' in editors && 'candidates' in editors && 'attach' in editors;
}

/**
 * Runs the agent-level tool `name` with arguments already validated against its input schema.
 * Resolves with an outcome (UNSUPPORTED for a tool that is not agent-level).
 */
export function runAgentTool(name: string, editors: AgentEditors, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutcome> {
  const tool = AGENT_TOOLS.get(name);
  if (!tool) return Promise.resolve(fail('UNSUPPORTED', `This agent has no agent-level tool named ${name}.`, { hint: 'Update the agent (vimrelay) to match the relay.' }));
  return tool(editors, args, signal);
}
