/** save_buffer (lua/save_buffer.lua, vimrelay/save_buffer.vim): :update inside the buffer, never forced. */
import { saveBuffer } from '../../../protocol/index.ts';
import { bufferName } from './describe.ts';
import { defineEditorTool } from './tool.ts';

/** Not started at all once the call's deadline has passed (the caller was answered TIMEOUT). */
export const saveBufferTool = defineEditorTool({
  spec: saveBuffer,
  impl: 'save_buffer',
  params: (args, call) => ({ buffer: args.buffer, expected_changedtick: args.expected_changedtick, start_by: call.deadline }),
  addresses: 'buffer',
  neverRead: { refuses: true },
  preview: (args) => [`save ${bufferName(args.buffer)}`],
});
