/**
 * What the lsp_* tools that edit share (lsp-code-actions.ts, lsp-format.ts): the apply, review and
 * changedtick arguments, and the result that lists each file's edits as lsp_rename does (range, old
 * and new text), before and after they are made. A preview reads; applying writes (`permissionOf`).
 */
import { z } from 'zod';
import { changedtickArg } from './common.ts';
import { lspBuf, LspRange, RANGE_TEXT } from './lsp.ts';
import { ReviewResult, reviewArg, reviewTimeoutArg } from './review.ts';

/** `apply`, `expected_changedtick`, `review` and `timeout_ms` of an lsp_* tool that edits. */
export const lspApplyArgs = {
  apply: z.boolean().optional().describe('Default false: preview (read permission); true edits (write).'),
  expected_changedtick: changedtickArg.optional().describe("The buffer's changedtick you read; required with apply."),
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
  changedtick: z.number().int().nonnegative().nullable().describe("its buffer's, after; null: no buffer"),
  edits: z.array(z.object({ ...LspRange, old_text: z.string().describe('the text replaced'), new_text: z.string().describe('what replaces it') })).describe(`ranges ${RANGE_TEXT}, as before`),
});

/**
 * The result fields of an edit: whether it was made, each file's edits, and their count. `review`:
 * the review's result, without `files` for a tool that edits one buffer (no review of several files).
 */
export function lspEditResult(review: z.ZodType = ReviewResult) {
  return {
    server: z.string().describe('the language server that answered'),
    applied: z.boolean().describe('false: a preview'),
    files: z.array(LspFileEdits).describe('each file changed'),
    edit_count: z.number().int().nonnegative().describe('edits in all, listed or not'),
    truncated: z.boolean().describe('edits were left out of the list'),
    withheld: z.number().int().nonnegative().describe("files the user's policy hides, left out"),
    review: review.optional(),
  };
}
