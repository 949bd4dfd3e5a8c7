/**
 * What lsp_calls and lsp_types share (LSP 3.17 "Call Hierarchy", "Type Hierarchy"): the symbol at
 * a position as the server names it (prepareCallHierarchy, prepareTypeHierarchy), and the symbols
 * one step away from it, each with where its name is, sorted by place and paged.
 */
import { z } from 'zod';

/**
 * A symbol of a hierarchy: its name, kind (a name of lsp_symbols' SYMBOL_KINDS, kept a string
 * here to keep tools/list short), file, and where its name starts (a server's `detail` is left
 * out: the name and place find it, and tools/list stays short).
 */
export const HierarchyItem = {
  name: z.string().describe('symbol name'),
  kind: z.string().describe('symbol kind'),
  path: z.string(),
  line: z.number().int().positive(),
  col: z.number().int().positive(),
};

/** The symbol a hierarchy is of (the first the server names at the position). */
export const HierarchyOf = z.object(HierarchyItem).describe('the symbol; 1-based, col in characters');
