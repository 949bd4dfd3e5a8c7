/** set_cursor (lua/set_cursor.lua, vimrelay/set_cursor.vim): moves a window's cursor, showing a buffer first. */
import { setCursor } from '../../../protocol/index.ts';
import { bufferName } from './describe.ts';
import { defineEditorTool } from './tool.ts';

/** Refuses a line past the end; clamps the column; never changes which window is current. */
export const setCursorTool = defineEditorTool({
  spec: setCursor,
  impl: 'set_cursor',
  params: (args) => ({
    window: args.window,
    buffer: args.buffer,
    line: args.line,
    col: args.col ?? 1,
    center: args.center ?? false,
  }),
  addresses: 'window_buffer',
  // It shows a buffer; it returns none of its text.
  // Its answer (clamped column) and errors (line_count) tell the text's shape.
  neverRead: { refuses: true },
  preview: (args) => {
    const where = `line ${args.line}${args.col === undefined ? '' : `, column ${args.col}`}`;
    const buffer = args.buffer === undefined ? '' : ` of ${bufferName(args.buffer)}`;
    const win = args.window === undefined ? 'the current window' : `window ${args.window}`;
    return [`move the cursor of ${win} to ${where}${buffer}`];
  },
});
