/**
 * run_command: Ex commands run inside the editor, each with its captured output, stopping at the
 * first failure. A command waiting on a prompt is interrupted (CTRL-C) after `timeout_ms`, and a
 * call the editor could only start after the call deadline does not run at all.
 */
import { z } from 'zod';
import { CHANGES_TEXT, defineTool } from '../tool.ts';
import { editorArg } from './common.ts';

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

const command = z.string().min(1).max(L.commandChars);

export const CommandResult = z.object({
  index: z.number().int().positive().describe('1-based position of the command in `commands`.'),
  output: z.string().describe('What the command printed (messages, :echo, :ls ...), possibly cut.'),
  output_bytes: z.number().int().nonnegative().describe('Size of the whole output, in bytes.'),
  truncated: z.boolean().describe('True when `output` is only the start of the output.'),
});

export const runCommand = defineTool({
  name: 'run_command',
  title: 'Run Ex commands',
  description:
    'Run one or more Ex commands (or multi-line Vimscript chunks) in the editor, as if typed after ":", and get what each printed. ' +
    'Commands run in order and it stops at the first that fails: the error (EDITOR_ERROR) gives `failed_index`, the failed `command`, Vim\'s `vim_error`, ' +
    'and `results` of the commands before it; the ones after it did not run. ' +
    `Commands still running after timeout_ms (default ${L.defaultTimeoutMs} ms, at most ${L.maxTimeoutMs}) are interrupted with CTRL-C, as when one waits on a prompt ` +
    '(input(), getchar(), :s///c): the error is then TIMEOUT, with the same details. Prefer commands that do not prompt (e.g. :s without the c flag). ' +
    `Output is kept up to max_output_bytes per command (default ${L.defaultOutputBytes / 1024} KB, at most ${L.maxOutputBytes / 1024} KB) and ` +
    `${L.totalOutputBytes / 1024} KB for all commands together; \`truncated\` marks a cut output and \`output_truncated\` is true when any output was cut (raise max_output_bytes, or narrow the command, to see more). ` +
    'Changes the commands make stay unsaved unless a command writes, and are undone as Vim records them. ' +
    'For buffer text prefer read_buffer, find_and_replace, substitute and save_buffer; for keystrokes use send_keys; to type into a terminal use send_to_terminal.',
  permission: 'exec',
  routing: 'editor',
  annotations: CHANGES_TEXT,
  timeoutHint: PROMPT_TIMEOUT_HINT,
  input: z
    .object({
      editor: editorArg,
      commands: z
        .union([command, z.array(command).min(1).max(L.maxCommands)])
        .describe(`One command, or a list of up to ${L.maxCommands} run in order (each at most ${L.commandChars} characters). No leading ":" needed.`),
      max_output_bytes: z
        .number()
        .int()
        .positive()
        .max(L.maxOutputBytes)
        .optional()
        .describe(`Output kept per command, in bytes. Default ${L.defaultOutputBytes}, at most ${L.maxOutputBytes}.`),
      timeout_ms: z
        .number()
        .int()
        .min(L.minTimeoutMs)
        .max(L.maxTimeoutMs)
        .optional()
        .describe(`Interrupt the commands (CTRL-C) when they run longer, e.g. waiting on a prompt. Default ${L.defaultTimeoutMs}, at most ${L.maxTimeoutMs}.`),
    })
    .strict(),
  output: z.object({
    results: z.array(CommandResult).describe('One entry per command, in order.'),
    count: z.number().int().positive().describe('How many commands ran (all of them: a failure is an error instead).'),
    output_truncated: z.boolean().describe('True when some output was cut.'),
  }),
});
