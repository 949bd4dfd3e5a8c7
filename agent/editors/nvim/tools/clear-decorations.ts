/** clear_decorations on Neovim (lua/clear_decorations.lua): only our namespace is cleared. */
import { clearDecorations } from '../../../../protocol/index.ts';
import { defineNvimTool } from './tool.ts';

/** One id, one buffer, or every buffer; returns the count removed. */
export const clearDecorationsTool = defineNvimTool({
  spec: clearDecorations,
  lua: 'clear_decorations.lua',
  params: (args) => ({
    buffer: args.buffer,
    id: args.id,
    all_buffers: args.all_buffers ?? false,
  }),
});
