/** write_buffer on Neovim (lua/write_buffer.lua): whole-buffer replace, or create for a new path. */
import { writeBuffer } from '../../../../protocol/index.ts';
import { defineNvimTool } from './tool.ts';

/** Needs expected_changedtick for a buffer (or file) that exists; never writes the file. */
export const writeBufferTool = defineNvimTool({
  spec: writeBuffer,
  lua: 'write_buffer.lua',
  params: (args) => ({
    buffer: args.buffer,
    text: args.text,
    expected_changedtick: args.expected_changedtick,
  }),
});
