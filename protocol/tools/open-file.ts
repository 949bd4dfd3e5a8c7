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
    'Open a file in the editor: add it to the buffer list and load it, so that read_buffer, grep_buffers and the edit tools can work on it. ' +
    'The user\'s windows are left alone unless show is true, which shows the buffer in the current window (refused when that would abandon unsaved changes). ' +
    'A file that does not exist yet becomes an empty buffer with that name (nothing is written until save_buffer); a directory is refused. ' +
    'If the file already has a buffer, that buffer is returned (and loaded). ' +
    'To replace a new buffer\'s content use write_buffer; to move the cursor in a shown buffer use set_cursor.',
  permission: 'open',
  routing: 'editor',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z
    .object({
      editor: editorArg,
      path: z.string().min(1).max(4096).describe('File path: absolute, or relative to the editor\'s cwd.'),
      show: z.boolean().optional().describe('Show the buffer in the current window. Default false.'),
    })
    .strict(),
  output: z.object({
    ...BufferId,
    created: z.boolean().describe('True when this call added the buffer; false when the file already had one.'),
    exists_on_disk: z.boolean().describe('Whether the file exists on disk. False: the buffer is new and empty, and saving it creates the file.'),
    shown: z.boolean().describe('Whether the buffer is now shown in the current window.'),
    total_lines: z.number().int().nonnegative().nullable().describe('Null for a never_read file: nothing of its size is returned.'),
    changedtick: z.number().int().nonnegative().nullable().describe('Null for a never_read file.'),
    modified: z.boolean().describe('Whether the buffer has unsaved changes (only possible when it was already open).'),
  }),
});
