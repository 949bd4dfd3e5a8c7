import { z } from 'zod';
import { LIMITS } from '../limits.ts';
import { defineTool, READ_ONLY } from '../tool.ts';
import { BufferId, bufferRef, editorArg } from './common.ts';

export const readBuffer = defineTool({
  name: 'read_buffer',
  title: 'Read buffer',
  description:
    'Read the live text of a buffer, including unsaved changes, with its changedtick (pass it to edits as expected_changedtick). ' +
    'Whole buffer or start_line..end_line (1-based, inclusive; out-of-range bounds are clamped, reversed bounds swapped). ' +
    `Returns at most max_lines lines (default ${LIMITS.readDefaultLines}, up to ${LIMITS.readMaxLines}) and at most ` +
    `${LIMITS.maxResultBytes / 1024} KB of text; when cut short, \`truncated\` is true and \`next_start_line\` is the start_line to pass next. ` +
    'Defaults to the current buffer. To find text across buffers use grep_buffers.',
  permission: 'read',
  routing: 'editor',
  annotations: READ_ONLY,
  input: z
    .object({
      editor: editorArg,
      buffer: bufferRef.optional(),
      start_line: z.number().int().positive().optional().describe('First line, 1-based. Default 1.'),
      end_line: z.number().int().positive().optional().describe('Last line, inclusive. Default: the last line.'),
      max_lines: z
        .number()
        .int()
        .positive()
        .max(LIMITS.readMaxLines)
        .optional()
        .describe(`Most lines to return. Default ${LIMITS.readDefaultLines}, at most ${LIMITS.readMaxLines}.`),
    })
    .strict(),
  output: z.object({
    ...BufferId,
    changedtick: z.number().int().nonnegative(),
    total_lines: z.number().int().nonnegative(),
    start_line: z.number().int().positive(),
    end_line: z.number().int().nonnegative().describe('Last line returned; start_line - 1 when none were.'),
    lines: z.array(z.string()),
    truncated: z.boolean(),
    next_start_line: z.number().int().positive().nullable(),
  }),
});
