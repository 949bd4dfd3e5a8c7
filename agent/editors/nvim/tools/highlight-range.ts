/** highlight_range on Neovim (lua/highlight_range.lua): one highlight extmark in our namespace. */
import { highlightRange } from '../../../../protocol/index.ts';
import { defineNvimTool } from './tool.ts';

/** End exclusive; columns clamped to the line, lines refused past the end; color default info. */
export const highlightRangeTool = defineNvimTool({
  spec: highlightRange,
  lua: 'highlight_range.lua',
  params: (args) => ({
    buffer: args.buffer,
    start: args.start,
    end: args.end,
    color: args.color ?? 'info',
  }),
});
