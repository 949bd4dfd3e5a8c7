import { z } from 'zod';
import { LIMITS } from '../limits.ts';
import { defineTool, READ_ONLY } from '../tool.ts';
import { BufferId, currentBufferArg, editorArg } from './common.ts';

export const readBuffer = defineTool({
  name: 'read_buffer',
  title: 'Read buffer',
  description:
    'Read the live text of a buffer, unsaved changes included, with its changedtick for expected_changedtick. ' +
    'The whole buffer, or start_line..end_line (clamped to the buffer; reversed bounds are swapped). ' +
    `At most max_lines lines (default ${LIMITS.readDefaultLines}, up to ${LIMITS.readMaxLines}) and ${LIMITS.maxResultBytes / 1024} KB; ` +
    'when `truncated`, `next_start_line` is the start_line to pass next. To search buffers use grep_buffers.',
  permission: 'read',
  routing: 'editor',
  annotations: READ_ONLY,
  input: z
    .object({
      editor: editorArg,
      buffer: currentBufferArg,
      start_line: z.number().int().positive().optional().describe('Default 1.'),
      end_line: z.number().int().positive().optional().describe('Default: the last line.'),
      max_lines: z.number().int().positive().max(LIMITS.readMaxLines).optional().describe('Lines per call.'),
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
