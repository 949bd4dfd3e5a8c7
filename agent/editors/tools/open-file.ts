/** open_file (lua/open_file.lua, vimrelay/open_file.vim): bufadd + bufload, shown only when asked. */
import { openFile } from '../../../protocol/index.ts';
import { defineEditorTool } from './tool.ts';

/** The path is passed as data to bufadd(); it never reaches an Ex command line. */
export const openFileTool = defineEditorTool({
  spec: openFile,
  impl: 'open_file',
  params: (args) => ({ path: args.path, show: args.show ?? false }),
  addresses: 'path',
  // It loads the file; it returns none of its text, nor (for a never_read file) its size.
  neverRead: { refuses: false, filter: 'shape' },
  preview: (args) => [`open ${args.path}${args.show === true ? ' and show it' : ''}`],
});
