/** The catalog: every tool, in the order tools/list shows them. Explicit list, no scanning. */
import { decide } from './decide.ts';
import type { ToolSpec } from '../tool.ts';
import { findAndReplace } from './find-and-replace.ts';
import { getStateBrief } from './get-state-brief.ts';
import { listEditors } from './list-editors.ts';
import { readBuffer } from './read-buffer.ts';
import { writeBuffer } from './write-buffer.ts';
import { addVirtualText } from './add-virtual-text.ts';
import { clearDecorations } from './clear-decorations.ts';
import { highlightRange } from './highlight-range.ts';
import { setCursor } from './set-cursor.ts';
import { getDiagnostics } from './get-diagnostics.ts';
import { getState } from './get-state.ts';
import { grepBuffers } from './grep-buffers.ts';
import { connectEditor } from './connect-editor.ts';
import { runCommand } from './run-command.ts';
import { sendKeys } from './send-keys.ts';
import { sendToTerminal } from './send-to-terminal.ts';
import { applyDiff } from './apply-diff.ts';
import { openFile } from './open-file.ts';
import { saveBuffer } from './save-buffer.ts';
import { substitute } from './substitute.ts';
import { redo, undo } from './undo-redo.ts';
import { lspDefinition } from './lsp-definition.ts';
import { lspHover } from './lsp-hover.ts';
import { lspReferences } from './lsp-references.ts';
import { lspRename } from './lsp-rename.ts';
import { lspSymbols } from './lsp-symbols.ts';
import { lspCalls } from './lsp-calls.ts';
import { lspTypes } from './lsp-types.ts';
import { lspCodeActions } from './lsp-code-actions.ts';
import { lspFormat } from './lsp-format.ts';
import { reviewStatus } from './review.ts';

export { findAndReplace, getStateBrief, listEditors, readBuffer, writeBuffer };
export { addVirtualText, clearDecorations, highlightRange, setCursor };
export { getDiagnostics, getState, grepBuffers };
export { DIAGNOSTICS_LIMITS, SEVERITIES, Severity } from './get-diagnostics.ts';
export { STATE_LIMITS } from './get-state.ts';
export { STATE_CONTEXT_LINE_BYTES } from './get-state-brief.ts';
export { GREP_LIMITS } from './grep-buffers.ts';
export { DECORATION_COLORS, DecorationColor, DecorationId, VIRTUAL_TEXT_LIMITS } from './decorations.ts';
export { connectEditor, runCommand, sendKeys, sendToTerminal };
export { REVIEW_LIMITS, ReviewResult, reviewStatus } from './review.ts';
export { CARD_REFUSALS, decide, type CardRefusal } from './decide.ts';
export { CONNECT_EDITOR_LIMITS, EditorCandidate } from './connect-editor.ts';
export { PROMPT_TIMEOUT_HINT, RUN_COMMAND_LIMITS } from './run-command.ts';
export { SEND_KEYS_LIMITS } from './send-keys.ts';
export { SEND_TO_TERMINAL_LIMITS, TerminalRef } from './send-to-terminal.ts';
export { applyDiff, openFile, redo, saveBuffer, substitute, undo };
export { APPLY_DIFF_LIMITS } from './apply-diff.ts';
export { parseUnifiedDiff, type DiffEdit, type DiffHunk, type ParsedDiff } from './unified-diff.ts';
export { SAVE_TIMEOUT_HINT } from './save-buffer.ts';
export { SUBSTITUTE_FLAGS, SUBSTITUTE_LIMITS } from './substitute.ts';
export { UNDO_LIMITS } from './undo-redo.ts';
export { lspDefinition, lspHover, lspReferences, lspRename, lspSymbols };
export { LSP_LIMITS, LSP_SERVER_HINTS } from './lsp.ts';
export { DEFINITION_KINDS } from './lsp-definition.ts';
export { SYMBOL_KINDS } from './lsp-symbols.ts';
export { lspCalls, lspCodeActions, lspFormat, lspTypes };
export { CALL_DIRECTIONS } from './lsp-calls.ts';
export { TYPE_DIRECTIONS } from './lsp-types.ts';
export { CODE_ACTION_LIMITS, runsCommand } from './lsp-code-actions.ts';

export const TOOLS: readonly ToolSpec[] = [listEditors, connectEditor, getStateBrief, getState, readBuffer, grepBuffers, getDiagnostics, findAndReplace, applyDiff, writeBuffer, substitute, undo, redo, setCursor, highlightRange, addVirtualText, clearDecorations, openFile, saveBuffer, runCommand, sendKeys, sendToTerminal, lspDefinition, lspReferences, lspHover, lspSymbols, lspCalls, lspTypes, lspRename, lspCodeActions, lspFormat, reviewStatus];

const BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));

/** The catalog entry for `name`, or undefined for an unknown tool. */
export function toolByName(name: string): ToolSpec | undefined {
  return BY_NAME.get(name);
}

/**
 * The app-only tools (protocol/app/card.ts): outside the catalog, listed and served only to
 * clients that declared MCP Apps.
 */
export const APP_TOOLS: readonly ToolSpec[] = [decide];

/** The catalog entry or app-only tool named `name`: what the relay routes and the agent runs. */
export function anyToolByName(name: string): ToolSpec | undefined {
  return BY_NAME.get(name) ?? APP_TOOLS.find((t) => t.name === name);
}
