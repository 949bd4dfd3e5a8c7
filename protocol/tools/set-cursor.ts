import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { BufferId, bufferRef, editorArg, Position } from './common.ts';

export const setCursor = defineTool({
  name: 'set_cursor',
  title: 'Move cursor / show buffer',
  description:
    'Move a window\'s cursor to line and col, first showing `buffer` in it if it shows another: to show the user the place you mean. ' +
    'A column past the end is clamped; closed folds there open, the old position goes to the jumplist, ' +
    'and the current window stays current. To mark text without moving the cursor use highlight_range or add_virtual_text; to load a file, open_file.',
  permission: 'write',
  routing: 'editor',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z
    .object({
      editor: editorArg,
      window: z
        .number()
        .int()
        .positive()
        .optional()
        .describe('A `win` of get_state_brief or get_state. Default: the current window.'),
      buffer: bufferRef.optional().describe('To show in the window. Default: the one it shows.'),
      line: z.number().int().positive().describe('1-based; must exist.'),
      col: z.number().int().positive().optional().describe('1-based, in characters; default 1.'),
      center: z.boolean().optional().describe('Scroll the line to the middle (zz). Default false.'),
    })
    .strict(),
  output: z.object({
    window: z.number().int().positive().describe('the window\'s id'),
    ...BufferId,
    cursor: Position.describe('Where it landed.'),
    switched_buffer: z.boolean().describe('buffer was shown in it'),
  }),
});
