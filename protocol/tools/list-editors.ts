import { z } from 'zod';
import { defineTool, READ_ONLY } from '../tool.ts';
import { EditorInfo } from './common.ts';

export const listEditors = defineTool({
  name: 'list_editors',
  title: 'List editors',
  description:
    'List every Neovim and Vim online through vimrelay, on every connected machine. ' +
    'Call it first, and when a tool says the editor is ambiguous or offline; for the buffers and windows of one editor use get_state_brief. ' +
    'Not paginated: each machine reports at most 200 editors.',
  permission: 'read',
  routing: 'hub',
  annotations: READ_ONLY,
  input: z.object({}).strict(),
  output: z.object({
    editors: z.array(EditorInfo),
    count: z.number().int().nonnegative(),
  }),
});
