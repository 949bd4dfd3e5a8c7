import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { bufferRef, editorArg } from './common.ts';
import { DecorationId } from './decorations.ts';

export const clearDecorations = defineTool({
  name: 'clear_decorations',
  title: 'Clear decorations',
  description:
    'Remove decorations made by highlight_range and add_virtual_text: one (`id`, in `buffer`), every one in `buffer` (default: the current buffer), or every one in every buffer (`all_buffers: true`). ' +
    'Never touches the text, nor highlights, signs or virtual text of the user or of plugins. ' +
    'Returns how many were removed; 0 when they were already gone, so repeating a call is harmless.',
  permission: 'write',
  routing: 'editor',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z
    .object({
      editor: editorArg,
      buffer: bufferRef.optional().describe('Buffer number or path. Default: the current buffer. Not with all_buffers.'),
      id: DecorationId.optional().describe('Remove only this decoration of the buffer. Default: all of the buffer\'s. Not with all_buffers.'),
      all_buffers: z.boolean().optional().describe('Remove every vimrelay decoration in every buffer. Default false.'),
    })
    .strict()
    .refine((a) => !a.all_buffers || (a.buffer === undefined && a.id === undefined), {
      message: 'all_buffers clears every buffer: leave out buffer and id, or set all_buffers to false.',
      path: ['all_buffers'],
    }),
  output: z.object({
    removed: z.number().int().nonnegative().describe('How many decorations were removed.'),
    buf: z.number().int().positive().nullable().describe('The buffer cleared; null with all_buffers.'),
    path: z.string().nullable().describe('Absolute path of that buffer\'s file; null for an unnamed buffer or with all_buffers.'),
  }),
});
