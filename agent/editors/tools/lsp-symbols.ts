/** lsp_symbols (lua/lsp_symbols.lua, vimrelay/lsp_symbols.vim): a deferred request, flattened and paged in the editor. */
import { LSP_LIMITS, lspSymbols } from '../../../protocol/index.ts';
import { bufferName } from './describe.ts';
import { lspParams } from './lsp.ts';
import { defineEditorTool } from './tool.ts';

/** Pages of max_results symbols (default LSP_LIMITS.defaultResults), LIST_BUDGET_BYTES at most. */
export const lspSymbolsTool = defineEditorTool({
  spec: lspSymbols,
  impl: 'lsp_symbols',
  answer: 'deferred',
  params: (args) => ({
    ...lspParams(args),
    query: args.query,
    max_results: args.max_results ?? LSP_LIMITS.defaultResults,
    cursor: args.cursor,
  }),
  addresses: 'buffer',
  // A buffer's own symbols show its text; a project query only asks its server, and loses the
  // symbols of never_read files.
  neverRead: { refuses: (args) => args.query === undefined, filter: 'locations' },
  preview: (args) =>
    args.query === undefined
      ? [`list the symbols of ${bufferName(args.buffer)}`]
      : [`search the project's symbols (the server of ${bufferName(args.buffer)}) for:`, `  ${args.query}`],
});
