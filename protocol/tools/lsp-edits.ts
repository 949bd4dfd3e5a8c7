/**
 * What the lsp_* tools that edit share (lsp-code-actions.ts, lsp-format.ts): the apply, review and
 * changedtick arguments, and the result that lists each file's edits as lsp_rename does (range, old
 * and new text), before and after they are made. A preview reads; applying writes (`permissionOf`).
 */
import { z } from 'zod';
import { changedtickArg } from './common.ts';
import { lspBuf, LspRange } from './lsp.ts';
import { ReviewResult, reviewArg, reviewTimeoutArg } from './review.ts';

/** `apply`, `expected_changedtick`, `review` and `timeout_ms` of an lsp_* tool that edits. */
export const lspApplyArgs = {
  apply: z.boolean().optional().describe('Default false: preview (read permission); true edits (write).'),
  expected_changedtick: changedtickArg.optional().describe('Required with apply (the buffer\'s).'),
  review: reviewArg,
  timeout_ms: reviewTimeoutArg,
};

/** The refinement every such input takes (`.refine(...needsTick())`): apply needs expected_changedtick. */
export function needsTick(): [(a: { apply?: boolean | undefined; expected_changedtick?: number | undefined }) => boolean, { message: string; path: string[] }] {
  return [(a) => a.apply !== true || a.expected_changedtick !== undefined, { message: 'apply needs expected_changedtick (call read_buffer for it)', path: ['expected_changedtick'] }];
}

/** One file's edits, and its buffer and changedtick once they are made. */
export const LspFileEdits = z.object({
  path: z.string(),
  buf: lspBuf,
  changedtick: z.number().int().nonnegative().nullable(),
  edits: z.array(z.object({ ...LspRange, old_text: z.string(), new_text: z.string() })),
});

/** The result fields of an edit: whether it was made, each file's edits, and their count. */
export const lspEditResult = {
  server: z.string(),
  applied: z.boolean(),
  files: z.array(LspFileEdits),
  edit_count: z.number().int().nonnegative(),
  truncated: z.boolean(),
  withheld: z.number().int().nonnegative(),
  review: ReviewResult.optional(),
};
