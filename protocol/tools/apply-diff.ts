/**
 * apply_diff: a unified diff applied to one live buffer, all hunks or none, as one undo step.
 * The diff is parsed here (unified-diff.ts), so a malformed one is refused by schema validation,
 * in the relay and the agent alike, before any editor is involved.
 */
import { z } from 'zod';
import { defineTool } from '../tool.ts';
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
    'Apply a unified diff (as `diff -u` or `git diff` print it) to one live buffer: all hunks, or nothing. The result is one undo step and stays unsaved. ' +
    'The target is `buffer` (default: the current buffer); the diff\'s ---/+++ file names are ignored, and a diff touching several files is refused. ' +
    'Context and removed lines must match the buffer exactly (no fuzz). A hunk is tried at the line its header names first; if the lines are not there, ' +
    `at the nearest line where they are (as patch does, carrying the shift to later hunks), and \`shifted\` reports it (at most ${L.shiftedListed} listed, \`shifted_count\` counts all). ` +
    'If any hunk matches nowhere, nothing changes and the error (DIFF_MISMATCH) names the first failing hunk and shows the buffer\'s lines where it should apply ' +
    `(at most ${L.mismatchLines} lines, each cut to ${L.lineBytes} bytes). ` +
    'expected_changedtick is required: take it from read_buffer, and build the diff from the text you read. ' +
    '"\\ No newline at end of file" is honoured: the buffer\'s \'endofline\' follows it (and \'fixendofline\' is turned off when the new text lacks the final newline). ' +
    'For one small change find_and_replace is simpler; to rewrite everything use write_buffer; for pattern replacements use substitute.',
  permission: 'write',
  routing: 'editor',
  // Idempotent: with the required changedtick, a repeated call is refused as stale and changes nothing.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  input: z
    .object({
      editor: editorArg,
      buffer: currentBufferArg,
      diff: diffText.describe(
        'A unified diff of this one buffer: optional ---/+++ header, then hunks "@@ -a,b +c,d @@" whose lines start with " " (context), "-" (removed) or "+" (added).',
      ),
      expected_changedtick: changedtickArg,
    })
    .strict(),
  output: z.object({
    ...BufferId,
    changedtick: z.number().int().nonnegative().describe('The buffer\'s changedtick after the edit.'),
    total_lines: z.number().int().nonnegative(),
    hunks_applied: z.number().int().nonnegative(),
    lines_added: z.number().int().nonnegative(),
    lines_removed: z.number().int().nonnegative(),
    shifted: z
      .array(z.object({ hunk: z.number().int().positive(), offset: z.number().int() }))
      .describe(`Hunks applied away from the line their header names, with the offset in lines (at most ${L.shiftedListed} listed).`),
    shifted_count: z.number().int().nonnegative().describe('How many hunks were shifted, listed or not.'),
  }),
});
