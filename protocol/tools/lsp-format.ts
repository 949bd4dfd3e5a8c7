/**
 * lsp_format: the edits the language server's formatter makes to a buffer or to some of its lines
 * (textDocument/formatting, /rangeFormatting), with the buffer's own indent settings as the
 * formatting options; a preview, or with `apply` made in the buffer (PROTOCOL.md "lsp_format").
 */
import { z } from 'zod';
import { LIMITS } from '../limits.ts';
import { CHANGES_TEXT, defineTool } from '../tool.ts';
import { currentBufferArg, editorArg } from './common.ts';
import { LSP_TIMEOUT_HINT } from './lsp.ts';
import { lspApplyArgs, lspEditResult, needsTick } from './lsp-edits.ts';
import { OneBufferReview } from './review.ts';

export const lspFormat = defineTool({
  name: 'lsp_format',
  title: 'Format a buffer (LSP)',
  description:
    "The language server's formatting of a buffer or some lines, with the buffer's shiftwidth and expandtab: a preview; `apply` makes it, one undo step. " +
    `Edits listed up to ${LIMITS.maxResultBytes / 1024} KB. See lsp_code_actions.`,
  permission: 'write',
  permissionOf: (args) => (args.apply === true ? 'write' : 'read'),
  routing: 'editor',
  annotations: CHANGES_TEXT,
  timeoutHint: LSP_TIMEOUT_HINT,
  input: z
    .object({
      editor: editorArg,
      buffer: currentBufferArg,
      start_line: z.number().int().positive().optional().describe('First line, 1-based; default: all.'),
      end_line: z.number().int().positive().optional().describe('Last line, with start_line.'),
      ...lspApplyArgs,
    })
    .strict()
    .refine((a) => (a.start_line === undefined) === (a.end_line === undefined) && (a.start_line ?? 0) <= (a.end_line ?? 0), {
      message: 'give start_line and end_line together, start_line <= end_line',
      path: ['end_line'],
    })
    .refine(...needsTick()),
  output: z.object(lspEditResult(OneBufferReview)),
});
