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
    'Write a buffer to its file if it has unsaved changes, as :update does (a buffer without changes is not written: `written` is false). ' +
    'The user\'s write autocommands run (formatters may change the buffer): `modified` and `changedtick` are read afterwards. ' +
    'Pass expected_changedtick (from read_buffer or your last edit) to save only the text you know; a stale one writes nothing. ' +
    'Never forces: a read-only buffer or file, a missing directory or any other write failure is EDITOR_ERROR with the editor\'s message and changes nothing on disk. ' +
    'A buffer without a file (unnamed, or not a file buffer) is refused. Edits never save by themselves; this is the only tool that writes files.',
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
    written: z.boolean().describe('Whether the file was written (false: there was nothing to save).'),
    modified: z.boolean().describe('Whether the buffer still has unsaved changes after the write and its autocommands.'),
    changedtick: z.number().int().nonnegative().describe('The buffer\'s changedtick afterwards (autocommands may have changed the text).'),
  }),
});
