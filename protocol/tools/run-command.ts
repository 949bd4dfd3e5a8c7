/**
 * run_command: Ex commands run inside the editor, each with its captured output, stopping at the
 * first failure. A command waiting on a prompt is interrupted (CTRL-C) after `timeout_ms`, and a
 * call the editor could only start after the call deadline does not run at all.
 */
import { z } from 'zod';
import { CHANGES_TEXT, defineTool } from '../tool.ts';
import { editorArg, withoutNul } from './common.ts';

/** Caps of run_command. Output bytes are counted as the JSON text they become. */
export const RUN_COMMAND_LIMITS = {
  /** Commands one call may run. */
  maxCommands: 50,
  /** Longest command, in characters. */
  commandChars: 10_000,
  /** Output kept per command by default, and the most `max_output_bytes` may ask for. */
  defaultOutputBytes: 16 * 1024,
  maxOutputBytes: 64 * 1024,
  /** Output kept across all the commands of one call; later outputs are cut to what is left. */
  totalOutputBytes: 64 * 1024,
  /** Longest Vim error message kept (bytes). */
  errorBytes: 2_000,
  /** The failed command as echoed in the error (bytes). */
  echoedCommandBytes: 1_000,
  /** How long the commands may run before they are interrupted with CTRL-C: default and maximum (ms). */
  defaultTimeoutMs: 5_000,
  maxTimeoutMs: 25_000,
  minTimeoutMs: 100,
} as const;

const L = RUN_COMMAND_LIMITS;

/** The TIMEOUT hint of run_command (and send_keys), which may be held up by a prompt. */
export const PROMPT_TIMEOUT_HINT =
  'The editor did not answer before the deadline. It may be waiting on a prompt or message nobody answered (input(), confirm(), a :s///c question), ' +
  'or be busy with something CTRL-C cannot interrupt. Ask the user to look at the editor; once get_state_brief answers, check what the call did before retrying. ' +
  'A call the editor could only start after its deadline is not run at all.';

const command = withoutNul(z.string().min(1).max(L.commandChars), 'a command must not contain a NUL character (U+0000)');

/** `timeout_ms` of run_command and send_keys, whose descriptions state its default and cap. */
export const timeoutArg = z.number().int().min(L.minTimeoutMs).max(L.maxTimeoutMs).optional().describe(`ms before CTRL-C interrupts; default ${L.defaultTimeoutMs}.`);

export const CommandResult = z.object({
  index: z.number().int().positive().describe('1 for the first command'),
  output: z.string().describe('what it printed'),
  output_bytes: z.number().int().nonnegative().describe('of the whole output'),
  truncated: z.boolean().describe('output was cut at max_output_bytes'),
});

export const runCommand = defineTool({
  name: 'run_command',
  title: 'Run Ex commands',
  description:
    'Run Ex commands (or multi-line Vimscript) in the editor as if typed after ":", with what each printed. ' +
    'They run in order and stop at the first that fails (EDITOR_ERROR, with the results before it). ' +
    `Commands still running after timeout_ms (default ${L.defaultTimeoutMs}, at most ${L.maxTimeoutMs}), as at a prompt (input(), :s///c), ` +
    'are interrupted with CTRL-C (TIMEOUT): prefer commands that do not prompt. ' +
    `Output is kept up to max_output_bytes a command (default ${L.defaultOutputBytes / 1024} KB, at most ${L.maxOutputBytes / 1024} KB) and ` +
    `${L.totalOutputBytes / 1024} KB in all (output_truncated). Changes stay unsaved unless a command writes. ` +
    'For buffer text prefer read_buffer and find_and_replace; for keys, send_keys; for a terminal, send_to_terminal.',
  permission: 'exec',
  routing: 'editor',
  annotations: CHANGES_TEXT,
  timeoutHint: PROMPT_TIMEOUT_HINT,
  input: z
    .object({
      editor: editorArg,
      commands: z
        .union([command, z.array(command).min(1).max(L.maxCommands)])
        .describe('One command, or a list run in order. No leading ":" needed.'),
      max_output_bytes: z.number().int().positive().max(L.maxOutputBytes).optional().describe('Output kept per command.'),
      timeout_ms: timeoutArg,
    })
    .strict(),
  output: z.object({
    results: z.array(CommandResult).describe('one per command run'),
    count: z.number().int().positive(),
    output_truncated: z.boolean().describe('some output was cut'),
  }),
});
