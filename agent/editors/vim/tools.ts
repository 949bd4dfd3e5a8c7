/**
 * The catalog tools a Vim answers (plugin/vim/autoload/vimrelay/*.vim) and their parameters. The
 * Vim functions take exactly the parameters of the Neovim tools (defaults and caps filled in from
 * protocol/limits.ts), so the Neovim tool definitions are reused for them. Every editor tool of
 * the catalog is here (a test holds it so); the agent answers UNSUPPORTED for any other.
 */
import { applyDiffTool } from '../nvim/tools/apply-diff.ts';
import { findAndReplaceTool } from '../nvim/tools/find-and-replace.ts';
import { getStateBriefTool } from '../nvim/tools/get-state-brief.ts';
import { getStateTool } from '../nvim/tools/get-state.ts';
import { grepBuffersTool } from '../nvim/tools/grep-buffers.ts';
import { openFileTool } from '../nvim/tools/open-file.ts';
import { readBufferTool } from '../nvim/tools/read-buffer.ts';
import { setCursorTool } from '../nvim/tools/set-cursor.ts';
import type { NvimTool } from '../nvim/tools/tool.ts';
import { runCommandTool } from '../nvim/tools/run-command.ts';
import { sendKeysTool } from '../nvim/tools/send-keys.ts';
import { sendToTerminalTool } from '../nvim/tools/send-to-terminal.ts';
import { highlightRangeTool } from '../nvim/tools/highlight-range.ts';
import { addVirtualTextTool } from '../nvim/tools/add-virtual-text.ts';
import { clearDecorationsTool } from '../nvim/tools/clear-decorations.ts';
import { getDiagnosticsTool } from '../nvim/tools/get-diagnostics.ts';
import { saveBufferTool } from '../nvim/tools/save-buffer.ts';
import { substituteTool } from '../nvim/tools/substitute.ts';
import { redoTool, undoTool } from '../nvim/tools/undo-redo.ts';
import { writeBufferTool } from '../nvim/tools/write-buffer.ts';

/** Every tool a Vim answers. */
export const VIM_TOOLS: readonly NvimTool[] = [getStateBriefTool, getStateTool, readBufferTool, findAndReplaceTool, writeBufferTool, setCursorTool, undoTool, redoTool, runCommandTool, sendKeysTool, sendToTerminalTool, highlightRangeTool, addVirtualTextTool, clearDecorationsTool, getDiagnosticsTool, grepBuffersTool, openFileTool, saveBufferTool, substituteTool, applyDiffTool];

const BY_NAME = new Map(VIM_TOOLS.map((t) => [t.spec.name, t]));

/** The Vim implementation of the catalog tool `name`, if there is one. */
export function vimTool(name: string): NvimTool | undefined {
  return BY_NAME.get(name);
}
