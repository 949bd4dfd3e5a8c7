/** open_file on Neovim (lua/open_file.lua): bufadd + bufload, shown only when asked. */
import { openFile } from '../../../../protocol/index.ts';
import { defineNvimTool } from './tool.ts';

/** The path is passed as data to bufadd(); it never reaches an Ex command line. */
export const openFileTool = defineNvimTool({
  spec: openFile,
  lua: 'open_file.lua',
  params: (args) => ({ path: args.path, show: args.show ?? false }),
});
