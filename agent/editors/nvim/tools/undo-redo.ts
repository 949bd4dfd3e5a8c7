/** undo and redo on Neovim (lua/undo_redo.lua): :undo / :redo, a step at a time. */
import { redo, undo } from '../../../../protocol/index.ts';
import { defineNvimTool } from './tool.ts';

/** Takes up to `steps` (default 1) steps and stops early at either end of the undo tree. */
export const undoTool = defineNvimTool({
  spec: undo,
  lua: 'undo_redo.lua',
  params: (args) => ({ direction: 'undo', buffer: args.buffer, steps: args.steps ?? 1, expected_changedtick: args.expected_changedtick }),
});

/** As undoTool, forward. */
export const redoTool = defineNvimTool({
  spec: redo,
  lua: 'undo_redo.lua',
  params: (args) => ({ direction: 'redo', buffer: args.buffer, steps: args.steps ?? 1, expected_changedtick: args.expected_changedtick }),
});
