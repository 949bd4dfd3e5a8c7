/** undo and redo (lua/undo_redo.lua, vimrelay/undo_redo.vim): :undo / :redo, a step at a time. */
import { redo, undo } from '../../../protocol/index.ts';
import { bufferName, plural } from './describe.ts';
import { defineEditorTool, type EditorTool } from './tool.ts';

/** One direction through the undo tree; both share the twin files undo_redo. */
function undoRedoTool(spec: typeof undo, direction: 'undo' | 'redo'): EditorTool {
  return defineEditorTool({
    spec,
    impl: 'undo_redo',
    params: (args) => ({ direction, buffer: args.buffer, steps: args.steps ?? 1, expected_changedtick: args.expected_changedtick }),
    addresses: 'buffer',
    neverRead: { refuses: true },
    preview: (args) => [`${direction} ${plural(args.steps ?? 1, 'step')} in ${bufferName(args.buffer)}`],
  });
}

/** Takes up to `steps` (default 1) steps and stops early at the oldest state. */
export const undoTool = undoRedoTool(undo, 'undo');

/** As undoTool, forward, stopping at the newest state. */
export const redoTool = undoRedoTool(redo, 'redo');
