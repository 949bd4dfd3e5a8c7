/** write_buffer (lua/write_buffer.lua, vimrelay/write_buffer.vim): whole-buffer replace, or create for a new path. */
import { writeBuffer } from '../../../protocol/index.ts';
import { bufferName, lineCount, plural, prefixed } from './describe.ts';
import { defineEditorTool } from './tool.ts';

/** Needs expected_changedtick for a buffer (or file) that exists; never writes the file. */
export const writeBufferTool = defineEditorTool({
  spec: writeBuffer,
  impl: 'write_buffer',
  params: (args) => ({
    buffer: args.buffer,
    text: args.text,
    expected_changedtick: args.expected_changedtick,
  }),
  // A path that names no buffer yet still counts: it is the file the new buffer will be.
  addresses: 'buffer',
  neverRead: { refuses: true },
  preview: (args) => [`replace all of ${bufferName(args.buffer)} with ${plural(lineCount(args.text), 'line')}:`, ...prefixed('  ', args.text)],
});
