/** get_state (lua/get_state.lua, vimrelay/get_state.vim): get_state_brief plus windows, tabs, marks and more. */
import { getState, LIMITS, STATE_CONTEXT_LINE_BYTES, STATE_LIMITS } from '../../../protocol/index.ts';
import { LIST_BUDGET_BYTES } from './budget.ts';
import { defineEditorTool } from './tool.ts';

/**
 * The brief's part (buffers, modified buffers, terminals) may use up to this share of the budget,
 * so that a long buffer list cannot crowd out the windows, marks and decorations.
 */
export const BRIEF_SHARE_BYTES = Math.floor(LIST_BUDGET_BYTES / 2);

/** Every list capped by STATE_LIMITS (buffers by LIMITS.stateMaxBuffers), LIST_BUDGET_BYTES in all. */
export const getStateTool = defineEditorTool({
  spec: getState,
  impl: 'get_state',
  params: (_args, call) => ({
    max_buffers: LIMITS.stateMaxBuffers,
    context_lines: LIMITS.stateContextLines,
    context_line_bytes: STATE_CONTEXT_LINE_BYTES,
    brief_max_bytes: BRIEF_SHARE_BYTES,
    max_bytes: LIST_BUDGET_BYTES,
    max_windows: STATE_LIMITS.windows,
    max_tabs: STATE_LIMITS.tabs,
    max_folds: STATE_LIMITS.foldsPerWindow,
    max_marks: STATE_LIMITS.marks,
    max_decorations: STATE_LIMITS.decorations,
    max_diagnostic_buffers: STATE_LIMITS.diagnosticBuffers,
    decoration_text_bytes: STATE_LIMITS.decorationTextBytes,
    withheld: call.withheldPaths ?? [],
  }),
  addresses: 'none',
  neverRead: { refuses: false, filter: 'state', countsDiagnostics: true },
  lineTexts: { answer: ['data.windows.*.context.lines.*'] },
  preview: () => ['read the editor\'s whole state: windows, tabs, marks, the lines around each cursor'],
});
