/** set_cursor on Neovim (lua/set_cursor.lua): moves a window's cursor, showing a buffer first. */
import { setCursor } from '../../../../protocol/index.ts';
import { defineNvimTool } from './tool.ts';

/** Refuses a line past the end; clamps the column; never changes which window is current. */
export const setCursorTool = defineNvimTool({
  spec: setCursor,
  lua: 'set_cursor.lua',
  params: (args) => ({
    window: args.window,
    buffer: args.buffer,
    line: args.line,
    col: args.col ?? 1,
    center: args.center ?? false,
  }),
});
