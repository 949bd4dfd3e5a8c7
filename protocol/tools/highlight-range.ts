import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { BufferId, currentBufferArg, editorArg, Position } from './common.ts';
import { DecorationColor, decorationColorArg, DecorationId } from './decorations.ts';

export const highlightRange = defineTool({
  name: 'highlight_range',
  title: 'Highlight a range',
  description:
    'Highlight a stretch of a buffer\'s text in a named color, to point the user at it. Display only: text, changedtick, undo history and file are untouched, ' +
    'and the highlight follows its text as it is edited. Lines must exist; a column past the end of its line is clamped ' +
    '({line, col: 9999} is the end). Returns the id for clear_decorations. For a note beside a line use add_virtual_text.',
  permission: 'write',
  routing: 'editor',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input: z
    .object({
      editor: editorArg,
      buffer: currentBufferArg,
      start: Position.describe('The first character; 1-based, col in characters.'),
      end: Position.describe('Just after the last character.'),
      color: decorationColorArg,
    })
    .strict(),
  output: z.object({
    id: DecorationId.describe('for clear_decorations'),
    ...BufferId,
    start: Position.describe('After clamping.'),
    end: Position.describe('After clamping.'),
    color: DecorationColor.describe('the color given'),
  }),
});
