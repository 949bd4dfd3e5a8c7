/** highlight_range (lua/highlight_range.lua, vimrelay/highlight_range.vim): one highlight in our namespace. */
import { highlightRange } from '../../../protocol/index.ts';
import { bufferName } from './describe.ts';
import { defineEditorTool } from './tool.ts';

/** End exclusive; columns clamped to the line, lines refused past the end; color default info. */
export const highlightRangeTool = defineEditorTool({
  spec: highlightRange,
  impl: 'highlight_range',
  params: (args) => ({
    buffer: args.buffer,
    start: args.start,
    end: args.end,
    color: args.color ?? 'info',
  }),
  addresses: 'buffer',
  // Its answer (clamped columns) and errors (line_count) tell the text's shape.
  neverRead: { refuses: true },
  preview: (args) => [`highlight ${args.start.line}:${args.start.col}-${args.end.line}:${args.end.col} of ${bufferName(args.buffer)}`],
});
