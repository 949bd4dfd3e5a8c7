/** save_buffer on Neovim (lua/save_buffer.lua): :update inside the buffer, never forced. */
import { saveBuffer } from '../../../../protocol/index.ts';
import { startBy } from './start-by.ts';
import { defineNvimTool } from './tool.ts';

/** Not started at all once the call deadline has passed (the caller was answered TIMEOUT). */
export const saveBufferTool = defineNvimTool({
  spec: saveBuffer,
  lua: 'save_buffer.lua',
  params: (args) => ({ buffer: args.buffer, expected_changedtick: args.expected_changedtick, start_by: startBy() }),
});
