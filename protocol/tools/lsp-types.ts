/** lsp_types: the supertypes or subtypes of the type at a position (type hierarchy), paged. */
import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { LSP_LIMITS, LSP_READ_TOOL, lspPage, lspPageArgs, lspPositionArgs } from './lsp.ts';
import { HierarchyItem, HierarchyOf } from './lsp-hierarchy.ts';

/** The directions of a type hierarchy (typeHierarchy/supertypes, /subtypes). */
export const TYPE_DIRECTIONS = ['supertypes', 'subtypes'] as const;

export const lspTypes = defineTool({
  name: 'lsp_types',
  title: 'Supertypes and subtypes (LSP)',
  description:
    `The supertypes (default) or subtypes of the type at a position, one step, sorted by place; up to ${LSP_LIMITS.maxResults} a page. See lsp_definition.`,
  ...LSP_READ_TOOL,
  input: z
    .object({
      ...lspPositionArgs,
      direction: z.enum(TYPE_DIRECTIONS).optional().describe('Default supertypes.'),
      ...lspPageArgs('types'),
    })
    .strict(),
  output: z.object({
    ...lspPage,
    of: HierarchyOf,
    types: z.array(z.object(HierarchyItem)).describe('supertypes or subtypes'),
  }),
});
