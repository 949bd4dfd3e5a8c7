/**
 * send_keys: keystrokes, in Vim key notation, executed in normal mode after an <Esc>, as if typed.
 * They run to completion inside the call (incomplete commands are ended, as :normal does), so the
 * result can say the mode and cursor they left.
 */
import { z } from 'zod';
import { CHANGES_TEXT, defineTool } from '../tool.ts';
import { BufferId, editorArg, Position } from './common.ts';
import { PROMPT_TIMEOUT_HINT, RUN_COMMAND_LIMITS } from './run-command.ts';

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
    'Type keys into the editor as the user would, starting from normal mode: <Esc> is sent first, then `keys` in Vim key notation ' +
    '(<CR>, <C-w>, <Leader>, <lt> for "<"); mappings apply. The keys run to completion inside the call, like :normal: an unfinished command or ' +
    'insert is ended when they run out, so the editor is normally left in normal mode (visual mode stays on; `mode` says where it is). ' +
    `Keys still running after timeout_ms (default ${L.defaultTimeoutMs} ms, at most ${L.maxTimeoutMs}), e.g. at an input() prompt, are interrupted with CTRL-C (TIMEOUT). ` +
    'Returns what was sent, the mode, buffer and cursor afterwards, and `errmsg`, the last error message the keys caused (null if none). ' +
    'Edits made this way are unsaved and undone as typed. Prefer find_and_replace or write_buffer to edit text, set_cursor to move, run_command for Ex commands; ' +
    'use send_keys for what only keystrokes do (a plugin\'s mapping, window commands). To type into a terminal use send_to_terminal.',
  permission: 'exec',
  routing: 'editor',
  annotations: CHANGES_TEXT,
  timeoutHint: PROMPT_TIMEOUT_HINT,
  input: z
    .object({
      editor: editorArg,
      keys: z.string().min(1).max(L.keysChars).describe(`Keys in Vim notation, e.g. "ggdG", ":nohlsearch<CR>", "<C-w>v" (at most ${L.keysChars} characters).`),
      timeout_ms: z
        .number()
        .int()
        .min(L.minTimeoutMs)
        .max(L.maxTimeoutMs)
        .optional()
        .describe(`Interrupt the keys (CTRL-C) when they run longer, e.g. waiting on a prompt. Default ${L.defaultTimeoutMs}, at most ${L.maxTimeoutMs}.`),
    })
    .strict(),
  output: z.object({
    sent: z.string().describe('The keys sent, in key notation, <Esc> included.'),
    mode: z.string().describe('The mode afterwards (nvim_get_mode): n, v, V, nt, ...'),
    ...BufferId,
    cursor: Position.describe('The cursor afterwards, in the current window; the column in characters.'),
    errmsg: z.string().nullable().describe('The last error message (v:errmsg) the keys caused, or null.'),
  }),
});
