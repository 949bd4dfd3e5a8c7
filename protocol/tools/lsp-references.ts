/** lsp_references: every reference to the symbol at a position, grouped by file, paged. */
import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { LSP_LIMITS, LSP_READ_TOOL, lspPage, lspPageArgs, lspPagesText, lspPositionArgs, LspRange, RANGE_TEXT } from './lsp.ts';

export const lspReferences = defineTool({
  name: 'lsp_references',
  title: 'Find references (LSP)',
  description:
    `Every reference to the symbol at a position in the project, by file, sorted, each with its line's text (cut at ${LSP_LIMITS.lineBytes} bytes). ` +
    `${lspPagesText('references')} See also lsp_rename.`,
  ...LSP_READ_TOOL,
  input: z
    .object({
      ...lspPositionArgs,
      include_declaration: z.boolean().optional().describe('Count the declaration too; default true.'),
      ...lspPageArgs('references'),
    })
    .strict(),
  output: z.object({
    ...lspPage,
    files: z
      .array(z.object({ path: z.string(), references: z.array(z.object({ ...LspRange, text: z.string().describe("the line's text") })).describe(`ranges ${RANGE_TEXT}`) }))
      .describe('files with references'),
  }),
});
