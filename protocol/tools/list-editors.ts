import { z } from 'zod';
import { defineTool, READ_ONLY } from '../tool.ts';
import { EditorInfo } from './common.ts';

export const listEditors = defineTool({
  name: 'list_editors',
  title: 'List editors',
  description:
    'List the Neovims and Vims online on every connected machine, with the ids other tools take as `editor`. ' +
    'Call it first, and when a tool says the editor is ambiguous or offline; get_state_brief then shows one. ' +
    'At most 200 a machine.',
  permission: 'read',
  routing: 'hub',
  annotations: READ_ONLY,
  input: z.object({}).strict(),
  output: z.object({
    editors: z.array(EditorInfo).describe('those online'),
    count: z.number().int().nonnegative(),
  }),
});
