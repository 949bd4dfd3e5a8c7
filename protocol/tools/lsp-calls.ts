/** lsp_calls: the callers of the function at a position, or the functions it calls (call hierarchy), paged. */
import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { LSP_READ_TOOL, lspPage, lspPageArgs, lspPagesText, lspPositionArgs } from './lsp.ts';
import { HierarchyItem, HierarchyOf } from './lsp-hierarchy.ts';

/** The directions of a call hierarchy (callHierarchy/incomingCalls, /outgoingCalls). */
export const CALL_DIRECTIONS = ['incoming', 'outgoing'] as const;

export const lspCalls = defineTool({
  name: 'lsp_calls',
  title: 'Callers and callees (LSP)',
  description:
    'The functions that call the one at a position (`incoming`, the default) or that it calls (`outgoing`), sorted by place, ' +
    'each with `sites`: where the calls are (in the caller for incoming, in this function for outgoing). ' +
    `${lspPagesText('calls')} See also lsp_references.`,
  ...LSP_READ_TOOL,
  input: z
    .object({
      ...lspPositionArgs,
      direction: z.enum(CALL_DIRECTIONS).optional(),
      ...lspPageArgs('calls'),
    })
    .strict(),
  output: z.object({
    ...lspPage,
    of: HierarchyOf,
    calls: z.array(z.object({ ...HierarchyItem, sites: z.array(z.object({ line: z.number().int().positive(), col: z.number().int().positive() })) })),
  }),
});
