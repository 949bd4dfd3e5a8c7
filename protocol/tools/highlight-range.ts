import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { BufferId, currentBufferArg, editorArg, Position } from './common.ts';
import { DecorationColor, decorationColorArg, DecorationId } from './decorations.ts';

export const highlightRange = defineTool({
  name: 'highlight_range',
  title: 'Highlight a range',
  description:
    'Highlight a stretch of a buffer\'s text in a named color, to point the user at it. Display only: the text, changedtick, undo history and file are untouched, and the highlight follows the text as it is edited. ' +
    '`start` is the first highlighted character and `end` the position just after the last one (exclusive), exactly as find_and_replace returns them; lines 1-based, columns 1-based in characters. ' +
    'Lines must exist (else INVALID_ARGUMENT, with `line_count`); a column past the end of its line is clamped to just after the line\'s last character, so {line, col: 9999} reaches the end of a line. An empty range is refused. ' +
    'Returns the decoration `id` for clear_decorations. For a note beside a line use add_virtual_text; to move the cursor there use set_cursor.',
  permission: 'write',
  routing: 'editor',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input: z
    .object({
      editor: editorArg,
      buffer: currentBufferArg,
      start: Position.describe('First character of the range.'),
      end: Position.describe('Position just after the last character of the range (exclusive).'),
      color: decorationColorArg,
    })
    .strict(),
  output: z.object({
    id: DecorationId,
    ...BufferId,
    start: Position.describe('Start of the highlight, after clamping.'),
    end: Position.describe('End of the highlight (exclusive), after clamping.'),
    color: DecorationColor,
  }),
});
