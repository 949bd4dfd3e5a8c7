/** lsp_types: the supertypes or subtypes of the type at a position (type hierarchy), paged. */
import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { LSP_READ_TOOL, lspPage, lspPageArgs, lspPagesText, lspPositionArgs } from './lsp.ts';
import { HierarchyItem, HierarchyOf } from './lsp-hierarchy.ts';

/** The directions of a type hierarchy (typeHierarchy/supertypes, /subtypes). */
export const TYPE_DIRECTIONS = ['supertypes', 'subtypes'] as const;

export const lspTypes = defineTool({
  name: 'lsp_types',
  title: 'Supertypes and subtypes (LSP)',
  description:
    'The types the one at a position extends or implements (`supertypes`, the default), or those that extend or implement it (`subtypes`), one step, sorted by place. ' +
    `${lspPagesText('types')} See also lsp_definition.`,
  ...LSP_READ_TOOL,
  input: z
    .object({
      ...lspPositionArgs,
      direction: z.enum(TYPE_DIRECTIONS).optional(),
      ...lspPageArgs('types'),
    })
    .strict(),
  output: z.object({
    ...lspPage,
    of: HierarchyOf,
    types: z.array(z.object(HierarchyItem)),
  }),
});
