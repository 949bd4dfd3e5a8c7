/** lsp_calls: the callers of the function at a position, or the functions it calls (call hierarchy), paged. */
import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { LSP_LIMITS, LSP_READ_TOOL, lspPage, lspPageArgs, lspPositionArgs } from './lsp.ts';
import { HierarchyItem, HierarchyOf } from './lsp-hierarchy.ts';

/** The directions of a call hierarchy (callHierarchy/incomingCalls, /outgoingCalls). */
export const CALL_DIRECTIONS = ['incoming', 'outgoing'] as const;

export const lspCalls = defineTool({
  name: 'lsp_calls',
  title: 'Callers and callees (LSP)',
  description:
    `The callers (default) or callees of the function at a position, sorted by place, with where the calls are; up to ${LSP_LIMITS.maxResults} a page. See lsp_references.`,
  ...LSP_READ_TOOL,
  input: z
    .object({
      ...lspPositionArgs,
      direction: z.enum(CALL_DIRECTIONS).optional().describe('Default incoming.'),
      ...lspPageArgs('calls'),
    })
    .strict(),
  output: z.object({
    ...lspPage,
    of: HierarchyOf,
    calls: z
      .array(z.object({ ...HierarchyItem, sites: z.array(z.object({ line: z.number().int().positive(), col: z.number().int().positive() })).describe('the calls, in the caller (incoming) or in `of`') }))
      .describe('callers or callees'),
  }),
});
