/** lsp_hover: what the language server says about the symbol at a position. */
import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { LSP_LIMITS, LSP_READ_TOOL, lspPositionArgs, LspRange, RANGE_TEXT } from './lsp.ts';

export const lspHover = defineTool({
  name: 'lsp_hover',
  title: 'Hover: type and docs (LSP)',
  description:
    'The hover text (type, signature, docs) of the symbol at a position, as the server gives it, ' +
    `at most ${LSP_LIMITS.hoverBytes} bytes (text_truncated), and its signature alone. See also lsp_definition.`,
  ...LSP_READ_TOOL,
  input: z.object(lspPositionArgs).strict(),
  output: z.object({
    server: z.string().describe('the language server that answered'),
    format: z.enum(['markdown', 'plaintext']).nullable().describe('of text; null without one'),
    text: z.string().nullable().describe('type, signature, docs; null: none'),
    text_truncated: z.boolean().describe(`text was cut at ${LSP_LIMITS.hoverBytes} bytes`),
    signature: z.string().nullable().describe('its first code block, or first line'),
    range: z.object(LspRange).nullable().describe(`of the symbol: ${RANGE_TEXT}`),
  }),
});
