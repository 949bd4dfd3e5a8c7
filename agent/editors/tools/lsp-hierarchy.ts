/**
 * lsp_calls and lsp_types (lua/lsp_hierarchy.lua, vimrelay/lsp_hierarchy.vim, which they share): one
 * step of a call or type hierarchy, two requests in a row, as a deferred answer, paged in the editor.
 */
import { LSP_LIMITS, lspCalls, lspTypes, SYMBOL_KINDS } from '../../../protocol/index.ts';
import { lspParams, positionName } from './lsp.ts';
import { defineEditorTool } from './tool.ts';

/** The parameters both share: the position, the page, and the names of LSP's SymbolKind 1..26. */
function hierarchyParams(args: { buffer?: number | string | undefined; line: number; col: number; max_results?: number | undefined; cursor?: string | undefined }): Record<string, unknown> {
  return { ...lspParams(args), kinds: SYMBOL_KINDS, max_results: args.max_results ?? LSP_LIMITS.defaultResults, cursor: args.cursor };
}

/** Pages of max_results calls (default LSP_LIMITS.defaultResults), LIST_BUDGET_BYTES at most. */
export const lspCallsTool = defineEditorTool({
  spec: lspCalls,
  impl: 'lsp_hierarchy',
  answer: 'deferred',
  params: (args) => {
    const outgoing = args.direction === 'outgoing';
    return {
      ...hierarchyParams(args),
      prepare: 'textDocument/prepareCallHierarchy',
      method: outgoing ? 'callHierarchy/outgoingCalls' : 'callHierarchy/incomingCalls',
      field: outgoing ? 'to' : 'from',
      list: 'calls',
    };
  },
  addresses: 'buffer',
  // Its own buffer's names and places; the calls in never_read files are left out.
  neverRead: { refuses: true, filter: 'locations' },
  preview: (args) => [`list the ${args.direction === 'outgoing' ? 'functions called by' : 'callers of'} the function at ${positionName(args)}`],
});

/** Pages of max_results types (default LSP_LIMITS.defaultResults), LIST_BUDGET_BYTES at most. */
export const lspTypesTool = defineEditorTool({
  spec: lspTypes,
  impl: 'lsp_hierarchy',
  answer: 'deferred',
  params: (args) => ({
    ...hierarchyParams(args),
    prepare: 'textDocument/prepareTypeHierarchy',
    method: args.direction === 'subtypes' ? 'typeHierarchy/subtypes' : 'typeHierarchy/supertypes',
    list: 'types',
  }),
  addresses: 'buffer',
  neverRead: { refuses: true, filter: 'locations' },
  preview: (args) => [`list the ${args.direction === 'subtypes' ? 'subtypes' : 'supertypes'} of the type at ${positionName(args)}`],
});
