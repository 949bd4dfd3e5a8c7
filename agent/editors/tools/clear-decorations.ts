/** clear_decorations (lua/clear_decorations.lua, vimrelay/clear_decorations.vim): only our namespace is cleared. */
import { clearDecorations } from '../../../protocol/index.ts';
import { bufferName } from './describe.ts';
import { defineEditorTool } from './tool.ts';

/** One id, one buffer, or every buffer; returns the count removed. */
export const clearDecorationsTool = defineEditorTool({
  spec: clearDecorations,
  impl: 'clear_decorations',
  params: (args) => ({
    buffer: args.buffer,
    id: args.id,
    all_buffers: args.all_buffers ?? false,
  }),
  addresses: (args) => (args.all_buffers === true ? 'none' : 'buffer'),
  neverRead: { refuses: false },
  preview: (args) => [args.all_buffers === true ? 'clear every vimrelay decoration in every buffer' : `clear vimrelay decorations of ${bufferName(args.buffer)}`],
});
