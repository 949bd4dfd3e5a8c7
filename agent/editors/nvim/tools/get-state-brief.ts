/** get_state_brief on Neovim (lua/get_state_brief.lua): mode, buffers, windows, terminals. */
import { getStateBrief, LIMITS, STATE_CONTEXT_LINE_BYTES } from '../../../../protocol/index.ts';
import { LIST_BUDGET_BYTES } from './budget.ts';
import { defineNvimTool } from './tool.ts';

/**
 * Capped at LIMITS.stateMaxBuffers entries per list and LIST_BUDGET_BYTES of JSON, with
 * LIMITS.stateContextLines lines each side of a cursor, each cut at STATE_CONTEXT_LINE_BYTES.
 */
export const getStateBriefTool = defineNvimTool({
  spec: getStateBrief,
  lua: 'get_state_brief.lua',
  params: () => ({
    max_buffers: LIMITS.stateMaxBuffers,
    context_lines: LIMITS.stateContextLines,
    context_line_bytes: STATE_CONTEXT_LINE_BYTES,
    max_bytes: LIST_BUDGET_BYTES,
  }),
});
