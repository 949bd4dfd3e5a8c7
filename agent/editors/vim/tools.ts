/**
 * The catalog tools a Vim answers (plugin/vim/autoload/vimrelay/*.vim) and their parameters. The
 * Vim functions take exactly the parameters of the Neovim tools (defaults and caps filled in from
 * protocol/limits.ts), so the Neovim tool definitions are reused for them. Any other tool answers
 * UNSUPPORTED on Vim for now.
 */
import { findAndReplaceTool } from '../nvim/tools/find-and-replace.ts';
import { getStateBriefTool } from '../nvim/tools/get-state-brief.ts';
import { readBufferTool } from '../nvim/tools/read-buffer.ts';
import { setCursorTool } from '../nvim/tools/set-cursor.ts';
import type { NvimTool } from '../nvim/tools/tool.ts';
import { redoTool, undoTool } from '../nvim/tools/undo-redo.ts';
import { writeBufferTool } from '../nvim/tools/write-buffer.ts';

/** Every tool a Vim answers. */
export const VIM_TOOLS: readonly NvimTool[] = [getStateBriefTool, readBufferTool, findAndReplaceTool, writeBufferTool, setCursorTool, undoTool, redoTool];

const BY_NAME = new Map(VIM_TOOLS.map((t) => [t.spec.name, t]));

/** The Vim implementation of the catalog tool `name`, if there is one. */
export function vimTool(name: string): NvimTool | undefined {
  return BY_NAME.get(name);
}
