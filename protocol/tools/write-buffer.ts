import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { OneBufferReview, reviewArg, reviewTimeoutArg } from './review.ts';
import { BufferId, bufferRef, changedtickArg, editorArg } from './common.ts';

export const writeBuffer = defineTool({
  name: 'write_buffer',
  title: 'Write whole buffer',
  description:
    'Replace the whole text of a buffer. If no buffer has that path, one is created for it (the file is not written: save_buffer does that). ' +
    'expected_changedtick is required when the buffer or its file exists (open_file gives it). ' +
    'For small edits prefer find_and_replace or apply_diff, which cannot clobber text you did not read.',
  permission: 'write',
  routing: 'editor',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  input: z
    .object({
      editor: editorArg,
      buffer: bufferRef,
      text: z.string().describe('Split into lines on \\n; one trailing newline is ignored.'),
      expected_changedtick: changedtickArg.optional(),
      review: reviewArg,
      timeout_ms: reviewTimeoutArg,
    })
    .strict(),
  output: z.object({
    ...BufferId,
    created: z.boolean().describe('a new buffer for the path'),
    changedtick: z.number().int().nonnegative().describe('after the edit: pass to the next one'),
    total_lines: z.number().int().nonnegative(),
    review: OneBufferReview.optional(),
  }),
});
