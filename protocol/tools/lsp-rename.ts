/**
 * lsp_rename: the edits a rename makes across the project, as a preview; with `apply`, made in
 * the editor's buffers (PROTOCOL.md "lsp_rename"). Its permission class depends on `apply`: a
 * preview reads (`read`), applying writes (`write`).
 */
import { z } from 'zod';
import { LIMITS } from '../limits.ts';
import { CHANGES_TEXT, defineTool } from '../tool.ts';
import { changedtickArg, withoutNul } from './common.ts';
import { LSP_LIMITS, LSP_TIMEOUT_HINT, lspBuf, lspPositionArgs, LspRange, RANGE_TEXT } from './lsp.ts';
import { ReviewResult, reviewArg, reviewTimeoutArg } from './review.ts';

export const lspRename = defineTool({
  name: 'lsp_rename',
  title: 'Rename a symbol everywhere (LSP)',
  description:
    'Rename the symbol at a position everywhere. A preview by default: each file\'s edits. ' +
    'With `apply` (and expected_changedtick) it makes them, all or none, one undo step per buffer, opening files as needed. ' +
    `Lists edits up to ${LIMITS.maxResultBytes / 1024} KB (truncated). Files the user's policy hides: refused, or left out of a preview.`,
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
      expected_changedtick: changedtickArg.optional().describe('The changedtick you read of the position\'s buffer; required with apply.'),
      review: reviewArg,
      timeout_ms: reviewTimeoutArg,
    })
    .strict()
    .refine((a) => a.apply !== true || a.expected_changedtick !== undefined, {
      message: 'apply needs expected_changedtick (call read_buffer for it)',
      path: ['expected_changedtick'],
    }),
  output: z.object({
    server: z.string().describe('the language server that answered'),
    applied: z.boolean().describe('false: a preview'),
    files: z
      .array(
        z.object({
          path: z.string(),
          buf: lspBuf,
          changedtick: z.number().int().nonnegative().nullable().describe('its buffer\'s, after; null: no buffer'),
          edits: z
            .array(z.object({ ...LspRange, old_text: z.string().describe('the text replaced'), new_text: z.string().describe('what replaces it') }))
            .describe(`ranges ${RANGE_TEXT}, as before the rename`),
        }),
      )
      .describe('each file the rename changes'),
    edit_count: z.number().int().nonnegative().describe('edits in all, listed or not'),
    truncated: z.boolean().describe('edits were left out of the list'),
    withheld: z.number().int().nonnegative().describe("files the user's policy hides, left out of a preview"),
    review: ReviewResult.optional(),
  }),
});
