/**
 * Every editor tool of the catalog as its record (tool.ts), in one explicit list (no directory
 * scanning). Both adapters and the permission policy look tools up here; a test holds the list
 * whole: every catalog tool routed to an editor has a record, and every record its twin files.
 */
import { addVirtualTextTool } from './add-virtual-text.ts';
import { applyDiffTool } from './apply-diff.ts';
import { clearDecorationsTool } from './clear-decorations.ts';
import { findAndReplaceTool } from './find-and-replace.ts';
import { getDiagnosticsTool } from './get-diagnostics.ts';
import { getStateBriefTool } from './get-state-brief.ts';
import { getStateTool } from './get-state.ts';
import { grepBuffersTool } from './grep-buffers.ts';
import { highlightRangeTool } from './highlight-range.ts';
import { openFileTool } from './open-file.ts';
import { readBufferTool } from './read-buffer.ts';
import { runCommandTool } from './run-command.ts';
import { saveBufferTool } from './save-buffer.ts';
import { sendKeysTool } from './send-keys.ts';
import { sendToTerminalTool } from './send-to-terminal.ts';
import { setCursorTool } from './set-cursor.ts';
import { substituteTool } from './substitute.ts';
import type { EditorTool } from './tool.ts';
import { redoTool, undoTool } from './undo-redo.ts';
import { writeBufferTool } from './write-buffer.ts';
import { lspDefinitionTool } from './lsp-definition.ts';
import { lspHoverTool } from './lsp-hover.ts';
import { lspReferencesTool } from './lsp-references.ts';
import { lspRenameTool } from './lsp-rename.ts';
import { lspSymbolsTool } from './lsp-symbols.ts';
import { lspCallsTool, lspTypesTool } from './lsp-hierarchy.ts';
import { lspCodeActionsTool } from './lsp-code-actions.ts';
import { lspFormatTool } from './lsp-format.ts';

export type { Addressing, AnswerMode, CommitPhase, EditorTool, NeverReadFilter } from './tool.ts';

/** Every editor tool, in catalog order. */
export const EDITOR_TOOLS: readonly EditorTool[] = [
  getStateBriefTool,
  getStateTool,
  readBufferTool,
  grepBuffersTool,
  getDiagnosticsTool,
  findAndReplaceTool,
  applyDiffTool,
  writeBufferTool,
  substituteTool,
  undoTool,
  redoTool,
  setCursorTool,
  highlightRangeTool,
  addVirtualTextTool,
  clearDecorationsTool,
  openFileTool,
  saveBufferTool,
  runCommandTool,
  sendKeysTool,
  sendToTerminalTool,
  lspDefinitionTool,
  lspReferencesTool,
  lspHoverTool,
  lspSymbolsTool,
  lspCallsTool,
  lspTypesTool,
  lspRenameTool,
  lspCodeActionsTool,
  lspFormatTool,
];

const BY_NAME = new Map(EDITOR_TOOLS.map((t) => [t.spec.name, t]));

/** The record of the catalog tool `name`, if it is an editor tool. */
export function editorTool(name: string): EditorTool | undefined {
  return BY_NAME.get(name);
}

/** The twin files' names, each once (undo and redo share theirs), commit phases and their reviews' included. */
export const EDITOR_IMPLS: readonly string[] = [
  ...new Set(EDITOR_TOOLS.flatMap((t) => [t.impl, ...(t.commit ? [t.commit.impl] : []), ...(t.review?.kind === 'commit' ? [t.review.impl] : [])])),
];

export { getStateBriefTool, getStateTool, grepBuffersTool, readBufferTool };
