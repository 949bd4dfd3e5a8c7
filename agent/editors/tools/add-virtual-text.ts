/** add_virtual_text (lua/add_virtual_text.lua, vimrelay/add_virtual_text.vim): a note beside or between lines. */
import { addVirtualText } from '../../../protocol/index.ts';
import { bufferName, prefixed } from './describe.ts';
import { defineEditorTool } from './tool.ts';

/** Text caps (VIRTUAL_TEXT_LIMITS) are enforced by the catalog schema; position default eol. */
export const addVirtualTextTool = defineEditorTool({
  spec: addVirtualText,
  impl: 'add_virtual_text',
  params: (args) => ({
    buffer: args.buffer,
    line: args.line,
    text: args.text,
    position: args.position ?? 'eol',
    color: args.color ?? 'info',
  }),
  addresses: 'buffer',
  // Its errors (line_count) tell the text's length.
  neverRead: { refuses: true },
  preview: (args) => [`a note on line ${args.line} of ${bufferName(args.buffer)}:`, ...prefixed('  ', args.text)],
});
