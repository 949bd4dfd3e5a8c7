/** lsp_symbols: the symbols of a document as a tree (pre-order, with depth), or a workspace query. */
import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { currentBufferArg, editorArg } from './common.ts';
import { LSP_LIMITS, LSP_READ_TOOL, lspPage, lspPageArgs, lspPagesText, LspRange, RANGE_TEXT } from './lsp.ts';

/** LSP SymbolKind 1..26 (LSP 3.17 "SymbolKind"), by name; anything else is `unknown`. */
export const SYMBOL_KINDS = [
  'file', 'module', 'namespace', 'package', 'class', 'method', 'property', 'field', 'constructor', 'enum', 'interface', 'function', 'variable',
  'constant', 'string', 'number', 'boolean', 'array', 'object', 'key', 'null', 'enum_member', 'struct', 'event', 'operator', 'type_parameter', 'unknown',
] as const;

export const lspSymbols = defineTool({
  name: 'lsp_symbols',
  title: 'Symbols of a file or the project (LSP)',
  description:
    'A buffer\'s symbols as a tree in document order, or with `query` the project\'s matching symbols, sorted. ' +
    `${lspPagesText('symbols')} See also lsp_definition.`,
  ...LSP_READ_TOOL,
  input: z
    .object({
      editor: editorArg,
      buffer: currentBufferArg.describe('Buffer number or file path whose symbols (with query: whose server) to list; default: current.'),
      query: z.string().max(LSP_LIMITS.nameChars).optional().describe("A name to search the project's symbols for instead."),
      ...lspPageArgs('symbols'),
    })
    .strict(),
  output: z.object({
    ...lspPage,
    scope: z.enum(['document', 'workspace']).describe('the buffer\'s, or the project\'s (query)'),
    symbols: z
      .array(
        z.object({
          name: z.string().describe('the symbol\'s name'),
          kind: z.enum(SYMBOL_KINDS).describe('LSP SymbolKind'),
          detail: z.string().nullable().describe('e.g. its signature'),
          container: z.string().nullable().describe('name of its parent'),
          depth: z.number().int().nonnegative().describe('0 at the top level'),
          path: z.string(),
          ...LspRange,
        }),
      )
      .describe(`ranges ${RANGE_TEXT}`),
  }),
});
