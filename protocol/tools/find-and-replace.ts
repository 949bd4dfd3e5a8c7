import { z } from 'zod';
import { CHANGES_TEXT, defineTool } from '../tool.ts';
import { BufferId, changedtickArg, currentBufferArg, editorArg, Position } from './common.ts';

export const findAndReplace = defineTool({
  name: 'find_and_replace',
  title: 'Find and replace (exact, once)',
  description:
    'Replace one exact occurrence of old_text (may span lines) with new_text in a live buffer, as one undo step; the edit stays unsaved. ' +
    'Refused, changing nothing, when old_text occurs zero times (NO_MATCH) or more than once (MULTIPLE_MATCHES), or when expected_changedtick is given and stale. ' +
    'Prefer this for small edits. For many changes use apply_diff; to rewrite a whole buffer use write_buffer; for pattern replacements use substitute.',
  permission: 'write',
  routing: 'editor',
  annotations: CHANGES_TEXT,
  input: z
    .object({
      editor: editorArg,
      buffer: currentBufferArg,
      old_text: z.string().min(1).describe('Text to replace; must occur exactly once, whitespace and line breaks included.'),
      new_text: z.string().describe('Replacement text; may be empty to delete.'),
      expected_changedtick: changedtickArg.optional(),
    })
    .strict(),
  output: z.object({
    ...BufferId,
    changedtick: z.number().int().nonnegative().describe('The buffer\'s changedtick after the edit.'),
    start: Position.describe('Where the new text starts.'),
    end: Position.describe('The position just after the new text.'),
  }),
});
