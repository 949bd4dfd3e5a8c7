/** run_command on Neovim (lua/run_command.lua): captured output per command, CTRL-C watchdog. */
import { RUN_COMMAND_LIMITS, runCommand } from '../../../../protocol/index.ts';
import { startBy } from './start-by.ts';
import { defineNvimTool } from './tool.ts';

const L = RUN_COMMAND_LIMITS;

/** Output capped per command (max_output_bytes) and in total (RUN_COMMAND_LIMITS.totalOutputBytes). */
export const runCommandTool = defineNvimTool({
  spec: runCommand,
  lua: 'run_command.lua',
  params: (args) => ({
    commands: typeof args.commands === 'string' ? [args.commands] : args.commands,
    max_output_bytes: args.max_output_bytes ?? L.defaultOutputBytes,
    total_output_bytes: L.totalOutputBytes,
    error_bytes: L.errorBytes,
    command_bytes: L.echoedCommandBytes,
    timeout_ms: args.timeout_ms ?? L.defaultTimeoutMs,
    start_by: startBy(),
  }),
});
