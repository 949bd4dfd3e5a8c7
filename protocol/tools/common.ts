/**
 * Argument and result pieces shared by several tools. Each says what it means in its own
 * description, as every field of every tool does (a tool must make sense to a model that sees it
 * alone, without the server's instructions: test/protocol/descriptions.test.ts), in the fewest
 * words that stand alone; a tool's own description says only what is particular to it.
 */
import { z } from 'zod';
import { serverGuard } from '../tool.ts';

/**
 * `text` refused when it holds a U+0000, saying `why`: text an editor runs, types or shows cannot
 * carry one (Vim's json_decode() drops it, Neovim's Lua takes such a string as a Blob), so what
 * ran would not be what the prompt showed. Line texts carry one as a NUL byte (PROTOCOL.md).
 */
export function withoutNul(text: z.ZodString, why: string): z.ZodString {
  return text.refine((s) => !s.includes('\0'), why);
}

/** `editor`: an id from list_editors, optional when one editor is online. */
export const editorArg = serverGuard(z.string().min(1).max(200)).optional().describe('Editor id (list_editors); optional if one is online.');

/** What a `buffer` argument takes. */
const BUFFER_TEXT = "Buffer number, or a file path (relative: to the editor's cwd)";

export const bufferRef = z
  .union([
    z.number().int().positive(),
    serverGuard(z.string().min(1).max(4096)),
  ])
  .describe(`${BUFFER_TEXT}.`);

/** `buffer` where a tool defaults to the current buffer. */
export const currentBufferArg = bufferRef.optional().describe(`${BUFFER_TEXT}; default: current.`);

/** `expected_changedtick`: a stale one changes nothing. */
export const changedtickArg = z.number().int().nonnegative().describe('The changedtick you read; if the buffer changed since, nothing changes.');

/** A position in a buffer: 1-based line, 1-based column counted in characters (code points). */
export const Position = z.object({
  line: z.number().int().positive(),
  col: z.number().int().positive(),
});

/** How every Position counts, for the descriptions of the fields that hold one. */
export const POSITION_TEXT = '1-based; col counts characters';

export const EditorKind = z.enum(['nvim', 'vim']);

/**
 * What an editor that answers nothing until its user acts is waiting for (EDITOR_BLOCKED): the
 * "Press ENTER" prompt, the "-- More --" prompt, a question (the swap-file question E325, a
 * confirm() dialog), or the rest of a command the user is typing (a count, an operator, CTRL-W).
 */
export const EditorWaiting = z.enum(['hit-enter', 'more', 'confirm', 'keys']);
export type EditorWaiting = z.infer<typeof EditorWaiting>;

/** One editor as the relay (or the local agent) lists it; `id` is what `editor` takes. */
export const EditorInfo = z.object({
  id: z.string().describe('pass as `editor`'),
  device: z.string().describe('the machine'),
  kind: EditorKind.describe('Neovim or Vim'),
  version: z.string(),
  name: z.string().describe('g:vimrelay_name or cwd tail'),
  cwd: z.string(),
  current_file: z.string().nullable().describe('in its current window'),
  pid: z.number().int().nullable(),
  waiting_for: EditorWaiting.nullable().describe('while calls get EDITOR_BLOCKED'),
  ui: z.boolean().nullable().describe('UI attached'),
  uptime_s: z.number().int().nullable().describe('seconds running'),
});
export type EditorInfo = z.infer<typeof EditorInfo>;

/**
 * How buffers are identified in results: `buf`, its number, and `path`, its file's absolute path
 * or null for an unnamed buffer (MCP_INSTRUCTIONS).
 */
export const BufferId = {
  buf: z.number().int().positive(),
  path: z.string().nullable(),
};

/**
 * A page-size argument: `noun` per page, never more than `maxN`. The tool's description states
 * the default and the cap (with the argument that continues), so this one does not repeat them.
 */
export function maxResultsArg(noun: string, maxN: number) {
  return z.number().int().positive().max(maxN).optional().describe(`${noun} per page.`);
}
