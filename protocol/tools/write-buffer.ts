import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { BufferId, bufferRef, changedtickArg, editorArg } from './common.ts';

export const writeBuffer = defineTool({
  name: 'write_buffer',
  title: 'Write whole buffer',
  description:
    'Replace the whole content of a buffer with `text`, as one undo step; the change stays unsaved (use save_buffer to write it to disk). ' +
    'If no buffer has that path, a new buffer is created for it (the file is not written). ' +
    'expected_changedtick is required when the buffer already exists, and a stale one changes nothing. ' +
    'For small edits prefer find_and_replace or apply_diff, which cannot clobber text you did not read.',
  permission: 'write',
  routing: 'editor',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  input: z
    .object({
      editor: editorArg,
      buffer: bufferRef,
      text: z.string().describe('The full new content. Lines are split on \\n; one trailing newline is ignored.'),
      expected_changedtick: changedtickArg.optional(),
    })
    .strict(),
  output: z.object({
    ...BufferId,
    created: z.boolean().describe('True when a new buffer was made for this path.'),
    changedtick: z.number().int().nonnegative(),
    total_lines: z.number().int().nonnegative(),
  }),
});
