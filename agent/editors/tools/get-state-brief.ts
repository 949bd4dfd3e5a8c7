/** get_state_brief (lua/get_state_brief.lua, vimrelay/get_state_brief.vim): mode, buffers, windows, terminals. */
import { getStateBrief, LIMITS, STATE_CONTEXT_LINE_BYTES } from '../../../protocol/index.ts';
import { LIST_BUDGET_BYTES } from './budget.ts';
import { defineEditorTool } from './tool.ts';

/**
 * Capped at LIMITS.stateMaxBuffers entries per list and LIST_BUDGET_BYTES of JSON, with
 * LIMITS.stateContextLines lines each side of a cursor, each cut at STATE_CONTEXT_LINE_BYTES.
 */
export const getStateBriefTool = defineEditorTool({
  spec: getStateBrief,
  impl: 'get_state_brief',
  params: () => ({
    max_buffers: LIMITS.stateMaxBuffers,
    context_lines: LIMITS.stateContextLines,
    context_line_bytes: STATE_CONTEXT_LINE_BYTES,
    max_bytes: LIST_BUDGET_BYTES,
  }),
  addresses: 'none',
  neverRead: { refuses: false, filter: 'state' },
  lineTexts: { answer: ['data.windows.*.context.lines.*'] },
  preview: () => ['read the editor\'s state: buffers, windows and the lines around each cursor'],
});
