/**
 * Argument and result pieces shared by several tools. What they mean is said once, in the
 * server's instructions (protocol/mcp-server.ts `MCP_INSTRUCTIONS`): their descriptions here are
 * the shortest true ones, and a tool's own description says only what is particular to it.
 */
import { z } from 'zod';

/**
 * `text` refused when it holds a U+0000, saying `why`: text an editor runs, types or shows cannot
 * carry one (Vim's json_decode() drops it, Neovim's Lua takes such a string as a Blob), so what
 * ran would not be what the prompt showed. Line texts carry one as a NUL byte (PROTOCOL.md).
 */
export function withoutNul(text: z.ZodString, why: string): z.ZodString {
  return text.refine((s) => !s.includes('\0'), why);
}

/** `editor`: an id from list_editors, optional when one editor is online (MCP_INSTRUCTIONS). */
export const editorArg = z.string().min(1).max(200).optional().describe('Editor id.');

export const bufferRef = z
  .union([
    z.number().int().positive(),
    z.string().min(1).max(4096),
  ])
  .describe('Buffer number or path.');

/** `buffer` where a tool defaults to the current buffer, as MCP_INSTRUCTIONS says optional buffers do. */
export const currentBufferArg = bufferRef.optional();

/** `expected_changedtick`: a stale one changes nothing (MCP_INSTRUCTIONS). */
export const changedtickArg = z.number().int().nonnegative().describe('The changedtick you last read.');

/** A position in a buffer: 1-based line, 1-based column counted in characters (code points). */
export const Position = z.object({
  line: z.number().int().positive(),
  col: z.number().int().positive(),
});

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
  id: z.string(),
  device: z.string().describe('the machine'),
  kind: EditorKind,
  version: z.string(),
  name: z.string().describe('servername, or the cwd\'s last component'),
  cwd: z.string(),
  current_file: z.string().nullable(),
  pid: z.number().int().nullable(),
  waiting_for: EditorWaiting.nullable().describe('set while calls answer EDITOR_BLOCKED'),
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
