/** get_state_brief on Neovim (lua/get_state_brief.lua): mode, buffers, windows, terminals. */
import { getStateBrief, LIMITS } from '../../../../protocol/index.ts';
import { defineNvimTool } from './tool.ts';

/**
 * Context lines longer than this many bytes are cut (at a character boundary), so that a buffer of
 * minified text cannot push the brief past LIMITS.maxResultBytes.
 */
export const CONTEXT_LINE_MAX_BYTES = 1_000;

/** Capped at LIMITS.stateMaxBuffers buffers, LIMITS.stateContextLines lines each side of a cursor. */
export const getStateBriefTool = defineNvimTool({
  spec: getStateBrief,
  lua: 'get_state_brief.lua',
  params: () => ({
    max_buffers: LIMITS.stateMaxBuffers,
    context_lines: LIMITS.stateContextLines,
    context_line_bytes: CONTEXT_LINE_MAX_BYTES,
  }),
});
