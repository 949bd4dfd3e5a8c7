/** Argument and result pieces shared by several tools. */
import { z } from 'zod';

export const editorArg = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe('Editor id from list_editors. Optional when exactly one editor is online.');

export const bufferRef = z
  .union([
    z.number().int().positive(),
    z.string().min(1).max(4096),
  ])
  .describe('Buffer number, or a file path (absolute, or relative to the editor\'s cwd).');

/** `buffer` where a tool defaults to the current buffer. */
export const currentBufferArg = bufferRef.optional().describe('Buffer number or path. Default: the current buffer.');

export const changedtickArg = z
  .number()
  .int()
  .nonnegative()
  .describe('The changedtick from your last read of this buffer. The edit is refused, and nothing changes, if the buffer has changed since.');

/** A position in a buffer: 1-based line, 1-based column counted in characters (code points). */
export const Position = z.object({
  line: z.number().int().positive(),
  col: z.number().int().positive(),
});

export const EditorKind = z.enum(['nvim', 'vim']);

/** One editor as the relay (or the local agent) lists it. */
export const EditorInfo = z.object({
  id: z.string().describe('Pass this as `editor` to other tools.'),
  device: z.string().describe('The machine the editor runs on.'),
  kind: EditorKind,
  version: z.string(),
  name: z.string().describe('A human name: the servername or the cwd\'s last component.'),
  cwd: z.string(),
  current_file: z.string().nullable(),
  pid: z.number().int().nullable(),
});
export type EditorInfo = z.infer<typeof EditorInfo>;

/** How buffers are identified in results. */
export const BufferId = {
  buf: z.number().int().positive().describe('Buffer number.'),
  path: z.string().nullable().describe('Absolute path of the buffer\'s file, or null for an unnamed buffer.'),
};

/** A page-size argument: `noun` per page, `defaultN` unless asked, never more than `maxN`. */
export function maxResultsArg(noun: string, defaultN: number, maxN: number) {
  return z
    .number()
    .int()
    .positive()
    .max(maxN)
    .optional()
    .describe(`Most ${noun} to return. Default ${defaultN}, at most ${maxN}.`);
}
