/** get_diagnostics on Neovim (lua/get_diagnostics.lua): vim.diagnostic, sorted and paged. */
import { DIAGNOSTICS_LIMITS, getDiagnostics } from '../../../../protocol/index.ts';
import { LIST_BUDGET_BYTES } from './budget.ts';
import { defineNvimTool } from './tool.ts';

/** Pages of max_results diagnostics (default DIAGNOSTICS_LIMITS.defaultResults), LIST_BUDGET_BYTES at most. */
export const getDiagnosticsTool = defineNvimTool({
  spec: getDiagnostics,
  lua: 'get_diagnostics.lua',
  params: (args) => ({
    buffer: args.buffer,
    severity: args.severity,
    severity_match: args.severity_match ?? 'at_least',
    max_results: args.max_results ?? DIAGNOSTICS_LIMITS.defaultResults,
    cursor: args.cursor,
    max_bytes: LIST_BUDGET_BYTES,
    message_bytes: DIAGNOSTICS_LIMITS.messageBytes,
  }),
});
