/**
 * send_to_terminal: text written to the job of a terminal buffer (its pty), as if typed there.
 * Nothing is submitted unless asked: trailing newlines are stripped, and `submit` adds the Enter.
 */
import { z } from 'zod';
import { CHANGES_TEXT, defineTool } from '../tool.ts';
import { editorArg, withoutNul } from './common.ts';
import { PROMPT_TIMEOUT_HINT } from './run-command.ts';

/** Caps of send_to_terminal. */
export const SEND_TO_TERMINAL_LIMITS = {
  /** Longest `text`, in characters. */
  textChars: 64 * 1024,
  /** Terminals an error lists at most. */
  listedTerminals: 50,
} as const;

const L = SEND_TO_TERMINAL_LIMITS;

/** A terminal buffer as the errors of send_to_terminal list it. */
export const TerminalRef = z.object({
  buf: z.number().int().positive(),
  name: z.string().describe('The buffer name, e.g. term://~/src//4242:bash.'),
  title: z.string().describe('The title the job set (b:term_title), or "".'),
  running: z.boolean().describe('False when the job has exited.'),
});

export const sendToTerminal = defineTool({
  name: 'send_to_terminal',
  title: 'Send text to a terminal',
  description:
    'Type text into the program running in one of the editor\'s terminal buffers (:terminal): a shell command, an answer to a prompt. ' +
    'Trailing newlines are stripped; nothing is submitted unless `submit`. The output appears in the terminal buffer (read_buffer reads it). ' +
    'For Ex commands use run_command; for keys in the editor itself, send_keys.',
  permission: 'terminal',
  routing: 'editor',
  annotations: CHANGES_TEXT,
  timeoutHint: PROMPT_TIMEOUT_HINT,
  input: z
    .object({
      editor: editorArg,
      terminal: z
        .union([z.number().int().positive(), z.string().min(1).max(4096)])
        .optional()
        .describe('Buffer number, or a name or title (exact, else a unique part). Default: the current buffer if a terminal, else the only one.'),
      text: withoutNul(z.string().max(L.textChars), 'text must not contain a NUL character (U+0000)').describe('What to type.'),
      submit: z.boolean().optional().describe('Press Enter after the text. Default false.'),
    })
    .strict(),
  output: z.object({
    buf: z.number().int().positive(),
    name: z.string().describe('the terminal buffer\'s name'),
    channel: z.number().int().positive().describe('its job\'s channel id'),
    bytes: z.number().int().nonnegative().describe('Written, the carriage return included.'),
    submitted: z.boolean().describe('Enter was pressed'),
  }),
});
