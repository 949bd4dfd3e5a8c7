/**
 * The tools a Neovim answers, as an explicit list (no directory scanning), and their Lua sources,
 * which the adapter compiles into each editor when it attaches.
 */
import { luaSource } from '../lua.ts';
import { findAndReplaceTool } from './find-and-replace.ts';
import { getStateBriefTool } from './get-state-brief.ts';
import { readBufferTool } from './read-buffer.ts';
import type { NvimTool } from './tool.ts';
import { writeBufferTool } from './write-buffer.ts';
import { addVirtualTextTool } from './add-virtual-text.ts';
import { clearDecorationsTool } from './clear-decorations.ts';
import { highlightRangeTool } from './highlight-range.ts';
import { setCursorTool } from './set-cursor.ts';
import { getDiagnosticsTool } from './get-diagnostics.ts';
import { getStateTool } from './get-state.ts';
import { grepBuffersTool } from './grep-buffers.ts';
import { runCommandTool } from './run-command.ts';
import { sendKeysTool } from './send-keys.ts';
import { sendToTerminalTool } from './send-to-terminal.ts';
import { applyDiffTool } from './apply-diff.ts';
import { openFileTool } from './open-file.ts';
import { saveBufferTool } from './save-buffer.ts';
import { substituteTool } from './substitute.ts';
import { redoTool, undoTool } from './undo-redo.ts';

export type { NvimTool } from './tool.ts';

/** Every tool a Neovim answers. */
export const NVIM_TOOLS: readonly NvimTool[] = [getStateBriefTool, getStateTool, readBufferTool, grepBuffersTool, getDiagnosticsTool, findAndReplaceTool, applyDiffTool, writeBufferTool, substituteTool, undoTool, redoTool, setCursorTool, highlightRangeTool, addVirtualTextTool, clearDecorationsTool, openFileTool, saveBufferTool, runCommandTool, sendKeysTool, sendToTerminalTool];

const BY_NAME = new Map(NVIM_TOOLS.map((t) => [t.spec.name, t]));

/** The Neovim implementation of the catalog tool `name`, if there is one. */
export function nvimTool(name: string): NvimTool | undefined {
  return BY_NAME.get(name);
}

/**
 * Tool name -> Lua source, read at startup; sent to each editor on attach. Besides the catalog
 * tools, `paths` (lua/paths.lua): the files a call addresses, for the permission policy.
 */
export const TOOL_SOURCES: Readonly<Record<string, string>> = Object.fromEntries([
  ...NVIM_TOOLS.map((t) => [t.spec.name, luaSource(t.lua)]),
  ['paths', luaSource('paths.lua')],
]);
