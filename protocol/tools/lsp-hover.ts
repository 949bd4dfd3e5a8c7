/** lsp_hover: what the language server says about the symbol at a position. */
import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { LSP_LIMITS, LSP_READ_TOOL, lspPositionArgs, LspRange } from './lsp.ts';

export const lspHover = defineTool({
  name: 'lsp_hover',
  title: 'Hover: type and docs (LSP)',
  description:
    'The hover text (type, signature, docs) of the symbol at a position, as the server gives it (`format`), ' +
    `at most ${LSP_LIMITS.hoverBytes} bytes (text_truncated); null if none. \`signature\`: its first code block, or first line of plain text. See also lsp_definition.`,
  ...LSP_READ_TOOL,
  input: z.object(lspPositionArgs).strict(),
  output: z.object({
    server: z.string(),
    format: z.enum(['markdown', 'plaintext']).nullable(),
    text: z.string().nullable(),
    text_truncated: z.boolean(),
    signature: z.string().nullable(),
    range: z.object(LspRange).nullable(),
  }),
});
