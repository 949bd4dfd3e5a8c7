import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { BufferId, bufferRef, editorArg, Position } from './common.ts';

export const setCursor = defineTool({
  name: 'set_cursor',
  title: 'Move cursor / show buffer',
  description:
    'Move a window\'s cursor to a line and column, first showing `buffer` in that window when it shows another one; use it to show the user the place you are talking about. ' +
    'Lines are 1-based, columns 1-based in characters. The line must exist: past the last line the call is refused (INVALID_ARGUMENT, with `line_count`) and nothing moves; ' +
    'a column past the end of the line is clamped to its last character (`cursor` says where it landed). ' +
    'Closed folds at the line are opened and the previous position goes to the jumplist (the user can press Ctrl-O to go back); which window is current does not change. ' +
    'To mark text without moving the cursor use highlight_range or add_virtual_text; to load a file that has no buffer yet use open_file.',
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
        .describe('Window id: the `win` of a window listed by get_state_brief or get_state. Default: the current window.'),
      buffer: bufferRef.optional().describe('Buffer number or path to show in the window. Default: the buffer the window shows.'),
      line: z.number().int().positive().describe('1-based line; must exist.'),
      col: z.number().int().positive().optional().describe('1-based column in characters. Default 1; clamped to the line\'s last character.'),
      center: z.boolean().optional().describe('Scroll so that the line is in the middle of the window (zz). Default false: scroll only as far as needed.'),
    })
    .strict(),
  output: z.object({
    window: z.number().int().positive().describe('The window id whose cursor moved.'),
    ...BufferId,
    cursor: Position.describe('Where the cursor is now.'),
    switched_buffer: z.boolean().describe('True when the window was made to show `buffer` instead of the buffer it showed.'),
  }),
});
