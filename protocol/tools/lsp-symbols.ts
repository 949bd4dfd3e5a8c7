/** lsp_symbols: the symbols of a document as a tree (pre-order, with depth), or a workspace query. */
import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { currentBufferArg, editorArg } from './common.ts';
import { LSP_LIMITS, LSP_READ_TOOL, lspPage, lspPageArgs, lspPagesText, LspRange } from './lsp.ts';

/** LSP SymbolKind 1..26 (LSP 3.17 "SymbolKind"), by name; anything else is `unknown`. */
export const SYMBOL_KINDS = [
  'file', 'module', 'namespace', 'package', 'class', 'method', 'property', 'field', 'constructor', 'enum', 'interface', 'function', 'variable',
  'constant', 'string', 'number', 'boolean', 'array', 'object', 'key', 'null', 'enum_member', 'struct', 'event', 'operator', 'type_parameter', 'unknown',
] as const;

export const lspSymbols = defineTool({
  name: 'lsp_symbols',
  title: 'Symbols of a file or the project (LSP)',
  description:
    'A buffer\'s symbols as a tree in document order (`depth` 0 at the top, `container` its parent), or with `query` the project\'s matching symbols, sorted. ' +
    `${lspPagesText('symbols')} See also lsp_definition.`,
  ...LSP_READ_TOOL,
  input: z
    .object({
      editor: editorArg,
      buffer: currentBufferArg.describe('Whose symbols (with `query`: whose server).'),
      query: z.string().max(LSP_LIMITS.nameChars).optional().describe('Search the project instead.'),
      ...lspPageArgs('symbols'),
    })
    .strict(),
  output: z.object({
    ...lspPage,
    scope: z.enum(['document', 'workspace']),
    symbols: z.array(
      z.object({
        name: z.string(),
        kind: z.enum(SYMBOL_KINDS),
        detail: z.string().nullable(),
        container: z.string().nullable(),
        depth: z.number().int().nonnegative(),
        path: z.string(),
        ...LspRange,
      }),
    ),
  }),
});
