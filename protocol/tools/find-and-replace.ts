import { z } from 'zod';
import { CHANGES_TEXT, defineTool } from '../tool.ts';
import { OneBufferReview, reviewArg, reviewTimeoutArg } from './review.ts';
import { BufferId, changedtickArg, currentBufferArg, editorArg, Position } from './common.ts';

export const findAndReplace = defineTool({
  name: 'find_and_replace',
  title: 'Find and replace (exact, once)',
  description:
    'Replace the one exact occurrence of old_text (it may span lines) with new_text. ' +
    'Refused, changing nothing, when old_text occurs zero times (NO_MATCH) or more than once (MULTIPLE_MATCHES). ' +
    'Best for small edits; for many use apply_diff, to rewrite a buffer write_buffer, for patterns substitute.',
  permission: 'write',
  routing: 'editor',
  annotations: CHANGES_TEXT,
  input: z
    .object({
      editor: editorArg,
      buffer: currentBufferArg,
      old_text: z.string().min(1).describe('Exactly as in the buffer, whitespace and line breaks included.'),
      new_text: z.string().describe('May be empty, to delete.'),
      expected_changedtick: changedtickArg.optional(),
      review: reviewArg,
      timeout_ms: reviewTimeoutArg,
    })
    .strict(),
  output: z.object({
    ...BufferId,
    changedtick: z.number().int().nonnegative().describe('after the edit: pass to the next one'),
    start: Position.describe('of the new text; 1-based, col in characters'),
    end: Position.describe('just after the new text'),
    review: OneBufferReview.optional(),
  }),
});
