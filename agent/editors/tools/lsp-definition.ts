/** lsp_definition (lua/lsp_definition.lua, vimrelay/lsp_definition.vim): a deferred request to the buffer's language server. */
import { LSP_LIMITS, lspDefinition } from '../../../protocol/index.ts';
import { lspParams, positionName } from './lsp.ts';
import { defineEditorTool } from './tool.ts';

/** Pages of max_results locations (default LSP_LIMITS.defaultResults), each with LSP_LIMITS.contextLines of context. */
export const lspDefinitionTool = defineEditorTool({
  spec: lspDefinition,
  impl: 'lsp_definition',
  answer: 'deferred',
  params: (args) => ({
    ...lspParams(args),
    kind: args.kind ?? 'definition',
    max_results: args.max_results ?? LSP_LIMITS.defaultResults,
    cursor: args.cursor,
    context_lines: LSP_LIMITS.contextLines,
  }),
  addresses: 'buffer',
  // The addressed buffer's text is in the request (refused as read_buffer is); locations into
  // never_read files are left out with their context.
  neverRead: { refuses: true, filter: 'locations' },
  lineTexts: { answer: ['data.locations.*.context.lines.*'] },
  preview: (args) => [`ask the language server for the ${args.kind ?? 'definition'} at ${positionName(args)}`],
});
