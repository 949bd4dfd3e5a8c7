/** run_command (lua/run_command.lua, vimrelay/run_command.vim): captured output per command, CTRL-C watchdog. */
import { RUN_COMMAND_LIMITS, runCommand } from '../../../protocol/index.ts';
import { defineEditorTool } from './tool.ts';

const L = RUN_COMMAND_LIMITS;

/**
 * Output capped per command (max_output_bytes) and in total (RUN_COMMAND_LIMITS.totalOutputBytes);
 * not started after the call's deadline.
 */
export const runCommandTool = defineEditorTool({
  spec: runCommand,
  impl: 'run_command',
  params: (args, call) => ({
    commands: typeof args.commands === 'string' ? [args.commands] : args.commands,
    max_output_bytes: args.max_output_bytes ?? L.defaultOutputBytes,
    total_output_bytes: L.totalOutputBytes,
    error_bytes: L.errorBytes,
    command_bytes: L.echoedCommandBytes,
    timeout_ms: args.timeout_ms ?? L.defaultTimeoutMs,
    start_by: call.deadline,
  }),
  // Commands act on the current buffer (`%print`, `ggyG`...).
  addresses: 'current',
  neverRead: { refuses: true, filter: 'command_output' },
  preview: (args) => (typeof args.commands === 'string' ? [args.commands] : args.commands).flatMap((c) => `:${c}`.split('\n')),
});
