/**
 * send_keys: keystrokes, in Vim key notation, executed in normal mode after an <Esc>, as if typed.
 * They run to completion inside the call (incomplete commands are ended, as :normal does), so the
 * result can say the mode and cursor they left.
 */
import { z } from 'zod';
import { CHANGES_TEXT, defineTool } from '../tool.ts';
import { BufferId, editorArg, Position, withoutNul } from './common.ts';
import { PROMPT_TIMEOUT_HINT, RUN_COMMAND_LIMITS, timeoutArg } from './run-command.ts';

/** Caps of send_keys. */
export const SEND_KEYS_LIMITS = {
  /** Longest `keys`, in characters. */
  keysChars: 4_096,
  /** Longest Vim error message kept (bytes). */
  errorBytes: 2_000,
  /** How long the keys may run before they are interrupted with CTRL-C (ms), as for run_command. */
  defaultTimeoutMs: RUN_COMMAND_LIMITS.defaultTimeoutMs,
  maxTimeoutMs: RUN_COMMAND_LIMITS.maxTimeoutMs,
  minTimeoutMs: RUN_COMMAND_LIMITS.minTimeoutMs,
} as const;

const L = SEND_KEYS_LIMITS;

export const sendKeys = defineTool({
  name: 'send_keys',
  title: 'Send keystrokes',
  description:
    'Type keys as the user would, from normal mode: <Esc>, then `keys` in Vim key notation (<CR>, <C-w>, <Leader>, <lt> for "<"); ' +
    'mappings apply. Like :normal they run to completion: an unfinished command or insert is ended, leaving normal mode (visual mode stays). ' +
    `Keys still running after timeout_ms (default ${L.defaultTimeoutMs}, at most ${L.maxTimeoutMs}), e.g. at an input() prompt, are interrupted with CTRL-C (TIMEOUT). ` +
    'For what only keys do (a plugin\'s mapping, window commands): to edit prefer find_and_replace, to move set_cursor, ' +
    'for Ex commands run_command, for a terminal send_to_terminal.',
  permission: 'exec',
  routing: 'editor',
  annotations: CHANGES_TEXT,
  timeoutHint: PROMPT_TIMEOUT_HINT,
  input: z
    .object({
      editor: editorArg,
      keys: withoutNul(z.string().min(1).max(L.keysChars), 'keys must not contain a NUL character (U+0000)').describe('E.g. "ggdG", ":nohlsearch<CR>", "<C-w>v".'),
      timeout_ms: timeoutArg,
    })
    .strict(),
  output: z.object({
    sent: z.string().describe('In key notation, <Esc> included.'),
    mode: z.string().describe('Afterwards (nvim_get_mode): n, v, V, nt, ...'),
    ...BufferId,
    cursor: Position.describe('Afterwards, in the current window.'),
    errmsg: z.string().nullable().describe('The last error message (v:errmsg) the keys caused.'),
  }),
});
