/** lsp_definition: where the symbol at a position is defined (or declared, typed, implemented). */
import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { LSP_LIMITS, LSP_READ_TOOL, lspPage, lspPageArgs, lspPagesText, lspPositionArgs, LspRange, RANGE_TEXT } from './lsp.ts';

/** The kinds of definition, each an LSP method (textDocument/definition, /declaration, /typeDefinition, /implementation). */
export const DEFINITION_KINDS = ['definition', 'declaration', 'type_definition', 'implementation'] as const;

export const lspDefinition = defineTool({
  name: 'lsp_definition',
  title: 'Go to definition (LSP)',
  description:
    `Where the symbol at a position is defined (or by \`kind\`: declared, its type, implemented): locations with ${LSP_LIMITS.contextLines} lines of context each side. ` +
    `${lspPagesText('locations')} See also lsp_references.`,
  ...LSP_READ_TOOL,
  input: z
    .object({
      ...lspPositionArgs,
      kind: z.enum(DEFINITION_KINDS).optional().describe('Which place to find; default definition.'),
      ...lspPageArgs('locations'),
    })
    .strict(),
  output: z.object({
    ...lspPage,
    locations: z
      .array(
        z.object({
          path: z.string(),
          ...LspRange,
          context: z
            .object({ start_line: z.number().int().positive().describe('line of lines[0]'), lines: z.array(z.string()).describe('the text, unsaved included') })
            .describe('lines around it'),
        }),
      )
      .describe(`ranges ${RANGE_TEXT}`),
  }),
});
