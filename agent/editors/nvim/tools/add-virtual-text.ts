/** add_virtual_text on Neovim (lua/add_virtual_text.lua): one virt_text / virt_lines extmark. */
import { addVirtualText } from '../../../../protocol/index.ts';
import { defineNvimTool } from './tool.ts';

/** Text caps (VIRTUAL_TEXT_LIMITS) are enforced by the catalog schema; position default eol. */
export const addVirtualTextTool = defineNvimTool({
  spec: addVirtualText,
  lua: 'add_virtual_text.lua',
  params: (args) => ({
    buffer: args.buffer,
    line: args.line,
    text: args.text,
    position: args.position ?? 'eol',
    color: args.color ?? 'info',
  }),
});
