/**
 * save_buffer: Vim's :update on one buffer (write it to its file when it has unsaved changes),
 * guarded by its changedtick. The only tool that writes a file.
 */
import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { BufferId, changedtickArg, currentBufferArg, editorArg } from './common.ts';

/** The TIMEOUT hint of save_buffer: a write can wait on a question only the user can answer. */
export const SAVE_TIMEOUT_HINT =
  'The editor did not answer before the deadline. Writing may be waiting on a question to the user (e.g. the file changed on disk since it was read). ' +
  'Ask the user to look at the editor; once get_state_brief answers, check whether the buffer is still modified before retrying.';

export const saveBuffer = defineTool({
  name: 'save_buffer',
  title: 'Save buffer',
  description:
    'Write a buffer to its file if it has unsaved changes, as :update does. The user\'s write autocommands run (formatters may change it): ' +
    'the result is read after them. Pass expected_changedtick to save only the text you know. ' +
    'Never forces: a failed write (read-only, missing directory, ...) is EDITOR_ERROR and changes nothing on disk; ' +
    'a buffer without a file is refused. The only tool that writes files (write_buffer does not).',
  permission: 'save',
  routing: 'editor',
  timeoutHint: SAVE_TIMEOUT_HINT,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  input: z
    .object({
      editor: editorArg,
      buffer: currentBufferArg,
      expected_changedtick: changedtickArg.optional(),
    })
    .strict(),
  output: z.object({
    ...BufferId,
    written: z.boolean().describe('false: there was nothing to save'),
    modified: z.boolean(),
    changedtick: z.number().int().nonnegative().describe('after the write and its autocommands'),
  }),
});
