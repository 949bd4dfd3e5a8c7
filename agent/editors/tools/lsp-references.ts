/** lsp_references (lua/lsp_references.lua, vimrelay/lsp_references.vim): a deferred request, sorted and paged in the editor. */
import { LSP_LIMITS, lspReferences } from '../../../protocol/index.ts';
import { lspParams, positionName } from './lsp.ts';
import { defineEditorTool } from './tool.ts';

/** Pages of max_results references (default LSP_LIMITS.defaultResults), LIST_BUDGET_BYTES at most. */
export const lspReferencesTool = defineEditorTool({
  spec: lspReferences,
  impl: 'lsp_references',
  answer: 'deferred',
  params: (args) => ({
    ...lspParams(args),
    include_declaration: args.include_declaration ?? true,
    max_results: args.max_results ?? LSP_LIMITS.defaultResults,
    cursor: args.cursor,
  }),
  addresses: 'buffer',
  neverRead: { refuses: true, filter: 'locations' },
  lineTexts: { answer: ['data.files.*.references.*.text'] },
  preview: (args) => [`ask the language server for the references to the symbol at ${positionName(args)}`],
});
