/** grep_buffers on Neovim (lua/grep_buffers.lua): the search runs in the editor; one page returns. */
import { GREP_LIMITS, grepBuffers } from '../../../../protocol/index.ts';
import { LIST_BUDGET_BYTES } from './budget.ts';
import { defineNvimTool } from './tool.ts';

/** Pages of max_results hits (default GREP_LIMITS.defaultResults), LIST_BUDGET_BYTES of JSON at most. */
export const grepBuffersTool = defineNvimTool({
  spec: grepBuffers,
  lua: 'grep_buffers.lua',
  params: (args) => ({
    pattern: args.pattern,
    mode: args.mode ?? 'literal',
    case_sensitive: args.case_sensitive ?? true,
    buffers: args.buffers,
    max_results: args.max_results ?? GREP_LIMITS.defaultResults,
    cursor: args.cursor,
    max_bytes: LIST_BUDGET_BYTES,
    line_bytes: GREP_LIMITS.lineBytes,
    trim_context_bytes: GREP_LIMITS.trimContextBytes,
    scan_lines: GREP_LIMITS.scanLines,
  }),
});
