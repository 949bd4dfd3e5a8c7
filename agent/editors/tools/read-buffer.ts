/** read_buffer (lua/read_buffer.lua, vimrelay/read_buffer.vim): one page, capped in lines and bytes. */
import { LIMITS, readBuffer } from '../../../protocol/index.ts';
import { LIST_BUDGET_BYTES } from './budget.ts';
import { bufferName } from './describe.ts';
import { defineEditorTool } from './tool.ts';

/** Pages of max_lines (default LIMITS.readDefaultLines) and at most LIST_BUDGET_BYTES of JSON lines. */
export const readBufferTool = defineEditorTool({
  spec: readBuffer,
  impl: 'read_buffer',
  params: (args) => ({
    buffer: args.buffer,
    start_line: args.start_line,
    end_line: args.end_line,
    max_lines: args.max_lines ?? LIMITS.readDefaultLines,
    max_bytes: LIST_BUDGET_BYTES,
  }),
  addresses: 'buffer',
  neverRead: { refuses: true },
  lineTexts: { answer: ['data.lines.*'] },
  preview: (args) => [`read ${bufferName(args.buffer)}`],
});
