/** lsp_hover (lua/lsp_hover.lua, vimrelay/lsp_hover.vim): a deferred request to the buffer's language server. */
import { LSP_LIMITS, lspHover } from '../../../protocol/index.ts';
import { lspParams, positionName } from './lsp.ts';
import { defineEditorTool } from './tool.ts';

/** The hover text cut at LSP_LIMITS.hoverBytes. */
export const lspHoverTool = defineEditorTool({
  spec: lspHover,
  impl: 'lsp_hover',
  answer: 'deferred',
  params: (args) => ({ ...lspParams(args), hover_bytes: LSP_LIMITS.hoverBytes }),
  addresses: 'buffer',
  neverRead: { refuses: true },
  preview: (args) => [`ask the language server about the symbol at ${positionName(args)}`],
});
