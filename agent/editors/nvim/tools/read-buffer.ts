/** read_buffer on Neovim (lua/read_buffer.lua): one page, capped in lines and in bytes. */
import { LIMITS, readBuffer } from '../../../../protocol/index.ts';
import { LIST_BUDGET_BYTES } from './budget.ts';
import { defineNvimTool } from './tool.ts';

/** Pages of max_lines (default LIMITS.readDefaultLines) and at most LIST_BUDGET_BYTES of JSON lines. */
export const readBufferTool = defineNvimTool({
  spec: readBuffer,
  lua: 'read_buffer.lua',
  params: (args) => ({
    buffer: args.buffer,
    start_line: args.start_line,
    end_line: args.end_line,
    max_lines: args.max_lines ?? LIMITS.readDefaultLines,
    max_bytes: LIST_BUDGET_BYTES,
  }),
});
