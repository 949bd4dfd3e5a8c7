/** write_buffer (lua/write_buffer.lua, vimrelay/write_buffer.vim): whole-buffer replace, or create for a new path. */
import { writeBuffer } from '../../../protocol/index.ts';
import { bufferName, lineCount, plural, prefixed } from './describe.ts';
import { defineEditorTool } from './tool.ts';

/**
 * Needs expected_changedtick for a buffer (or file) that exists; never writes the file. The text
 * goes as its lines (one trailing "\n" ignored), so that a U+0000 stays inside its line on Vim too.
 */
export const writeBufferTool = defineEditorTool({
  spec: writeBuffer,
  impl: 'write_buffer',
  params: (args) => ({
    buffer: args.buffer,
    lines: args.text.replace(/\n$/, '').split('\n'),
    expected_changedtick: args.expected_changedtick,
  }),
  // A path that names no buffer yet still counts: it is the file the new buffer will be.
  addresses: 'buffer',
  neverRead: { refuses: true },
  lineTexts: { params: ['lines.*'] },
  preview: (args) => [`replace all of ${bufferName(args.buffer)} with ${plural(lineCount(args.text), 'line')}:`, ...prefixed('  ', args.text)],
  review: { kind: 'copy', creates: true },
});
