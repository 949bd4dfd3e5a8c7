import { z } from 'zod';
import { LIMITS } from '../limits.ts';
import { defineTool, READ_ONLY } from '../tool.ts';
import { BufferId, currentBufferArg, editorArg } from './common.ts';

export const readBuffer = defineTool({
  name: 'read_buffer',
  title: 'Read buffer',
  description:
    'Read a buffer\'s live text, unsaved changes included, and the changedtick edits take to check that nothing changed since. ' +
    'All of it, or start_line..end_line (clamped; reversed bounds are swapped). ' +
    `At most max_lines lines (default ${LIMITS.readDefaultLines}, up to ${LIMITS.readMaxLines}) and ${LIMITS.maxResultBytes / 1024} KB: ` +
    'when `truncated`, pass next_start_line as start_line. To search buffers use grep_buffers.',
  permission: 'read',
  routing: 'editor',
  annotations: READ_ONLY,
  input: z
    .object({
      editor: editorArg,
      buffer: currentBufferArg,
      start_line: z.number().int().positive().optional().describe('First line, 1-based; default 1.'),
      end_line: z.number().int().positive().optional().describe('Last line, inclusive; default: the last.'),
      max_lines: z.number().int().positive().max(LIMITS.readMaxLines).optional().describe('Most lines returned.'),
    })
    .strict(),
  output: z.object({
    ...BufferId,
    changedtick: z.number().int().nonnegative().describe('pass as expected_changedtick'),
    total_lines: z.number().int().nonnegative(),
    start_line: z.number().int().positive().describe('line of lines[0]'),
    end_line: z.number().int().nonnegative().describe('last line returned; start_line - 1 when none were'),
    lines: z.array(z.string()).describe('the text, without line breaks'),
    truncated: z.boolean().describe('lines were left out'),
    next_start_line: z.number().int().positive().nullable().describe('start_line for the rest'),
  }),
});
