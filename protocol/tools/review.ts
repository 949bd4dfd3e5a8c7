/**
 * Reviews (README "Reviews"): what the edit tools take and give when an edit is shown to the user
 * as a diff in their editor before it lands, and review_status, which gives the outcome of a
 * review that outlasted its call. A review is asked for by the user's policy (`review` for the
 * write class, or for paths) or by the model (`review: true`); the model can never skip one the
 * policy asks for.
 */
import { z } from 'zod';
import { defineTool, READ_ONLY } from '../tool.ts';
import { editorArg } from './common.ts';

/** Caps and times of reviews. */
export const REVIEW_LIMITS = {
  /** How long a review may wait for the user's decision (ms); then it expires and nothing is applied. */
  expiryMs: 10 * 60_000,
  /** The longest `timeout_ms` of an edit and `wait_ms` of review_status: within the call's deadline. */
  maxWaitMs: 25_000,
  /** The shortest. */
  minWaitMs: 100,
  /** Lines of a buffer a review shows at most (both sides); a longer buffer's edit is refused under review. */
  maxLines: 50_000,
} as const;

const L = REVIEW_LIMITS;

/** The edit tools' `review`: ask the user to review this edit, whatever the policy says. */
export const reviewArg = z
  .boolean()
  .optional()
  .describe('true: the user reviews the diff first (their policy may ask anyway).');

/** The edit tools' `timeout_ms`: how long the call waits for the user's decision on a review. */
export const reviewTimeoutArg = z
  .number()
  .int()
  .min(L.minWaitMs)
  .max(L.maxWaitMs)
  .optional()
  .describe(`ms to wait for a review (default, most ${L.maxWaitMs}); then review.decision is pending.`);

/** What the user decided on one file of an edit of several (lsp_rename): each file on its own. */
export const FILE_DECISIONS = ['accepted', 'accepted_with_changes', 'rejected', 'conflict', 'expired', 'offline'] as const;

/** What a review decided, as successful results carry it. */
export const ReviewResult = z
  .object({
    id: z.string().describe('for review_status'),
    decision: z
      .enum(['accepted', 'accepted_with_changes', 'partly_accepted', 'pending'])
      .describe('pending: nothing changed yet, see review_status; partly_accepted: see files'),
    user_changes: z.string().optional().describe("diff from your edit to the user's"),
    dashboard: z.string().optional().describe('the page to decide it on'),
    files: z
      .array(
        z.object({
          path: z.string().nullable(),
          decision: z.enum(FILE_DECISIONS).describe("this file's outcome"),
          reason: z.string().optional().describe("the user's, if rejected"),
          user_changes: z.string().optional().describe("this file's, as above"),
        }),
      )
      .optional()
      .describe('each file of an edit of several'),
  })
  .describe('if the user reviewed it');

/**
 * ReviewResult of a tool that edits one buffer (find_and_replace, apply_diff, write_buffer,
 * substitute, lsp_format): one file is accepted or not as a whole, so neither `files` nor
 * `partly_accepted`, which tools/list need not spend words on.
 */
export const OneBufferReview = ReviewResult.omit({ files: true })
  .extend({ decision: z.enum(['accepted', 'accepted_with_changes', 'pending']).describe('pending: nothing changed yet, see review_status') })
  .describe('if the user reviewed it');

/** The review_status tool: the outcome of a review whose edit answered "pending". */
export const reviewStatus = defineTool({
  name: 'review_status',
  title: 'Review outcome',
  description:
    'The outcome of a review that an edit (find_and_replace, apply_diff, lsp_rename, ...) answered with review.decision pending: ' +
    'that edit\'s result, with its `tool`. ' +
    `Waits up to wait_ms (default 0, at most ${L.maxWaitMs}) for the user to decide; still undecided, the decision is pending again. ` +
    'Rejected, conflicting and expired reviews are errors (REVIEW_REJECTED with the user\'s reason, REVIEW_CONFLICT, REVIEW_EXPIRED); ' +
    `an unknown id is REVIEW_NOT_FOUND. A review expires ${L.expiryMs / 60_000} minutes after it was opened.`,
  permission: 'read',
  routing: 'editor',
  annotations: READ_ONLY,
  input: z
    .object({
      editor: editorArg,
      id: z.string().min(1).max(100).describe('review.id of the edit, or decision.id of a DECISION_PENDING.'),
      wait_ms: z.number().int().min(0).max(L.maxWaitMs).optional().describe('How long to wait for the user\'s decision (ms); default 0: answer at once.'),
    })
    .strict(),
  output: z
    .object({
      tool: z.string().describe('The tool reviewed or asked about; the other fields are its result.'),
      review: ReviewResult.optional(),
    })
    .catchall(z.unknown()),
});
