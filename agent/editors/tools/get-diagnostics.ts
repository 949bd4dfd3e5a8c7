/** get_diagnostics (lua/get_diagnostics.lua, vimrelay/get_diagnostics.vim): sorted and paged. */
import { DIAGNOSTICS_LIMITS, getDiagnostics } from '../../../protocol/index.ts';
import { LIST_BUDGET_BYTES } from './budget.ts';
import { bufferName } from './describe.ts';
import { defineEditorTool } from './tool.ts';

/** Pages of max_results diagnostics (default DIAGNOSTICS_LIMITS.defaultResults), LIST_BUDGET_BYTES at most. */
export const getDiagnosticsTool = defineEditorTool({
  spec: getDiagnostics,
  impl: 'get_diagnostics',
  params: (args, call) => ({
    buffer: args.buffer,
    severity: args.severity,
    severity_match: args.severity_match ?? 'at_least',
    max_results: args.max_results ?? DIAGNOSTICS_LIMITS.defaultResults,
    cursor: args.cursor,
    max_bytes: LIST_BUDGET_BYTES,
    message_bytes: DIAGNOSTICS_LIMITS.messageBytes,
    withheld: call.withheldPaths ?? [],
  }),
  addresses: 'buffer_or_none',
  // Messages can quote a file's text: refused for a named never_read buffer, left out of "all".
  neverRead: { refuses: true, filter: 'diagnostics', countsDiagnostics: true },
  preview: (args) => [`read the diagnostics of ${args.buffer === undefined ? 'every buffer' : bufferName(args.buffer)}`],
});
