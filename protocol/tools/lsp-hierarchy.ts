/**
 * What lsp_calls and lsp_types share (LSP 3.17 "Call Hierarchy", "Type Hierarchy"): the symbol at
 * a position as the server names it (prepareCallHierarchy, prepareTypeHierarchy), and the symbols
 * one step away from it, each with where its name is, sorted by place and paged.
 */
import { z } from 'zod';

/**
 * A symbol of a hierarchy: its name, kind (a name of lsp_symbols' SYMBOL_KINDS, kept a string
 * here to keep tools/list short), detail, file, and where its name starts.
 */
export const HierarchyItem = {
  name: z.string(),
  kind: z.string(),
  detail: z.string().nullable(),
  path: z.string(),
  line: z.number().int().positive(),
  col: z.number().int().positive(),
};

/** The symbol a hierarchy is of (the first the server names at the position). */
export const HierarchyOf = z.object(HierarchyItem);
