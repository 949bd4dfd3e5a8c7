/** read_buffer on Neovim (lua/read_buffer.lua): one page, capped in lines and in bytes. */
import { LIMITS, readBuffer } from '../../../../protocol/index.ts';
import { defineNvimTool } from './tool.ts';

/** Pages of max_lines (default LIMITS.readDefaultLines) and at most LIMITS.maxResultBytes. */
export const readBufferTool = defineNvimTool({
  spec: readBuffer,
  lua: 'read_buffer.lua',
  params: (args) => ({
    buffer: args.buffer,
    start_line: args.start_line,
    end_line: args.end_line,
    max_lines: args.max_lines ?? LIMITS.readDefaultLines,
    max_bytes: LIMITS.maxResultBytes,
  }),
});
