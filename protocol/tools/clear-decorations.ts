import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { bufferRef, editorArg } from './common.ts';
import { DecorationId } from './decorations.ts';

export const clearDecorations = defineTool({
  name: 'clear_decorations',
  title: 'Clear decorations',
  description:
    'Remove decorations made by highlight_range and add_virtual_text: one (`id`), all of `buffer`, or all of every buffer (`all_buffers`). ' +
    'Never touches the text, nor highlights, signs or virtual text of the user or of plugins. ' +
    'Returns how many were removed: 0 when they were gone already, so repeating a call is harmless.',
  permission: 'write',
  routing: 'editor',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z
    .object({
      editor: editorArg,
      buffer: bufferRef.optional().describe('Buffer number or file path; default: the current one. Not with all_buffers.'),
      id: DecorationId.optional().describe('Only this one of the buffer\'s. Not with all_buffers.'),
      all_buffers: z.boolean().optional().describe('Every buffer\'s. Default false.'),
    })
    .strict()
    .refine((a) => !a.all_buffers || (a.buffer === undefined && a.id === undefined), {
      message: 'all_buffers clears every buffer: leave out buffer and id, or set all_buffers to false.',
      path: ['all_buffers'],
    }),
  output: z.object({
    removed: z.number().int().nonnegative().describe('how many were removed'),
    buf: z.number().int().positive().nullable().describe('Null with all_buffers.'),
    path: z.string().nullable().describe('Null with all_buffers too.'),
  }),
});
