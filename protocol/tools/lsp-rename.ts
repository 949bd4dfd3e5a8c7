/**
 * lsp_rename: the edits a rename makes across the project, as a preview; with `apply`, made in
 * the editor's buffers (PROTOCOL.md "lsp_rename"). Its permission class depends on `apply`: a
 * preview reads (`read`), applying writes (`write`).
 */
import { z } from 'zod';
import { LIMITS } from '../limits.ts';
import { CHANGES_TEXT, defineTool } from '../tool.ts';
import { changedtickArg, withoutNul } from './common.ts';
import { LSP_LIMITS, LSP_TIMEOUT_HINT, lspBuf, lspPositionArgs, LspRange } from './lsp.ts';
import { ReviewResult, reviewArg, reviewTimeoutArg } from './review.ts';

export const lspRename = defineTool({
  name: 'lsp_rename',
  title: 'Rename a symbol everywhere (LSP)',
  description:
    'Rename the symbol at a position everywhere. A preview by default: each file\'s edits (range, old and new text). ' +
    'With `apply` (and expected_changedtick) it makes them, all or none, one undo step per buffer, opening files as needed. ' +
    `Lists edits up to ${LIMITS.maxResultBytes / 1024} KB (truncated; edit_count counts all). Never_read files: refused, or left out of a preview.`,
  permission: 'write',
  permissionOf: (args) => (args.apply === true ? 'write' : 'read'),
  routing: 'editor',
  annotations: CHANGES_TEXT,
  timeoutHint: LSP_TIMEOUT_HINT,
  input: z
    .object({
      ...lspPositionArgs,
      new_name: withoutNul(z.string().min(1).max(LSP_LIMITS.nameChars), 'new_name must not contain a NUL character (U+0000)').describe('The new name.'),
      apply: z.boolean().optional().describe('Default false: preview (read permission); true edits (write).'),
      expected_changedtick: changedtickArg.optional().describe('Required with apply (the position\'s buffer).'),
      review: reviewArg,
      timeout_ms: reviewTimeoutArg,
    })
    .strict()
    .refine((a) => a.apply !== true || a.expected_changedtick !== undefined, {
      message: 'apply needs expected_changedtick (call read_buffer for it)',
      path: ['expected_changedtick'],
    }),
  output: z.object({
    server: z.string(),
    applied: z.boolean(),
    files: z.array(
      z.object({
        path: z.string(),
        buf: lspBuf,
        changedtick: z.number().int().nonnegative().nullable(),
        edits: z.array(z.object({ ...LspRange, old_text: z.string(), new_text: z.string() })),
      }),
    ),
    edit_count: z.number().int().nonnegative(),
    truncated: z.boolean(),
    withheld: z.number().int().nonnegative(),
    review: ReviewResult.optional(),
  }),
});
