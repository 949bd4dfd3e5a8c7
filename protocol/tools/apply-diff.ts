/**
 * apply_diff: a unified diff applied to one live buffer, all hunks or none, as one undo step.
 * The diff is parsed here (unified-diff.ts), so a malformed one is refused by schema validation,
 * in the relay and the agent alike, before any editor is involved.
 */
import { z } from 'zod';
import { defineTool } from '../tool.ts';
import { OneBufferReview, reviewArg, reviewTimeoutArg } from './review.ts';
import { BufferId, changedtickArg, currentBufferArg, editorArg } from './common.ts';
import { parseUnifiedDiff } from './unified-diff.ts';

/** Caps of apply_diff. */
export const APPLY_DIFF_LIMITS = {
  /** Buffer lines a DIFF_MISMATCH error shows where the failing hunk should apply. */
  mismatchLines: 40,
  /** Each line a DIFF_MISMATCH error shows is cut to this many bytes. */
  lineBytes: 1_000,
  /** Hunks listed in `shifted`; `shifted_count` counts them all. */
  shiftedListed: 50,
} as const;

const L = APPLY_DIFF_LIMITS;

/** The diff text, refused with the parser's message when it is not a one-file unified diff. */
const diffText = z
  .string()
  .min(1)
  .superRefine((text, ctx) => {
    const parsed = parseUnifiedDiff(text);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.message });
  });

export const applyDiff = defineTool({
  name: 'apply_diff',
  title: 'Apply unified diff',
  description:
    'Apply a unified diff (diff -u, git diff) to one buffer: every hunk, or nothing. ' +
    'Its ---/+++ names are ignored; a diff of several files is refused. Context and removed lines must match exactly; ' +
    'a hunk not at its header\'s line goes to the nearest line where it matches, as patch does ' +
    `(\`shifted\` lists at most ${L.shiftedListed}). If a hunk matches nowhere, nothing changes: DIFF_MISMATCH shows ` +
    'the buffer\'s lines where it should apply. Diff the text you read: expected_changedtick is required. ' +
    '"\\ No newline at end of file" sets \'endofline\'. ' +
    'For one small change find_and_replace is simpler; to rewrite all, write_buffer; for patterns, substitute.',
  permission: 'write',
  routing: 'editor',
  // Idempotent: with the required changedtick, a repeated call is refused as stale and changes nothing.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  input: z
    .object({
      editor: editorArg,
      buffer: currentBufferArg,
      diff: diffText.describe('An optional ---/+++ header, then hunks "@@ -a,b +c,d @@" of lines starting with " " (context), "-" (removed) or "+" (added).'),
      expected_changedtick: changedtickArg,
      review: reviewArg,
      timeout_ms: reviewTimeoutArg,
    })
    .strict(),
  output: z.object({
    ...BufferId,
    changedtick: z.number().int().nonnegative().describe('after the edit: pass to the next one'),
    total_lines: z.number().int().nonnegative(),
    hunks_applied: z.number().int().nonnegative().describe('every hunk of the diff'),
    lines_added: z.number().int().nonnegative().describe('lines of + in all'),
    lines_removed: z.number().int().nonnegative().describe('lines of - in all'),
    shifted: z
      .array(z.object({ hunk: z.number().int().positive().describe('1 for the first'), offset: z.number().int().describe('lines from where its header said') }))
      .describe('hunks applied off their line'),
    shifted_count: z.number().int().nonnegative().describe('all of them, listed or not'),
    review: OneBufferReview.optional(),
  }),
});
