/**
 * open_file: a file added to the editor's buffer list and loaded, without switching to it unless
 * asked. The path is handed to the editor as data, never through Ex command parsing.
 */
import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { BufferId, editorArg } from './common.ts';

export const openFile = defineTool({
  name: 'open_file',
  title: 'Open file',
  description:
    'Add a file to the buffer list and load it, for read_buffer, grep_buffers and the edit tools; the user\'s windows are left alone unless `show`. ' +
    'A file that does not exist becomes an empty buffer of that name (written only by save_buffer); a directory is refused; ' +
    'a file that has a buffer already gets that buffer, loaded.',
  permission: 'open',
  routing: 'editor',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z
    .object({
      editor: editorArg,
      path: z.string().min(1).max(4096).describe('Absolute, or relative to the editor\'s cwd.'),
      show: z.boolean().optional().describe('Show the buffer in the current window. Default false.'),
    })
    .strict(),
  output: z.object({
    ...BufferId,
    created: z.boolean().describe('False: the file already had a buffer.'),
    exists_on_disk: z.boolean().describe('False: saving creates the file.'),
    shown: z.boolean().describe('shown in the current window'),
    total_lines: z.number().int().nonnegative().nullable().describe('null: the user\'s policy hides the file'),
    changedtick: z.number().int().nonnegative().nullable().describe('for expected_changedtick; null as total_lines'),
    modified: z.boolean(),
  }),
});
