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

export const lspFormat = defineTool({
  name: 'lsp_format',
  title: 'Format a buffer (LSP)',
  description:
    'The edits the language server\'s formatter makes to a buffer, or to lines start_line..end_line, with the buffer\'s shiftwidth and expandtab: a preview by default. ' +
    `With \`apply\` (and expected_changedtick) it makes them as one undo step. Lists edits up to ${LIMITS.maxResultBytes / 1024} KB (truncated; edit_count counts all).`,
  permission: 'write',
  permissionOf: (args) => (args.apply === true ? 'write' : 'read'),
  routing: 'editor',
  annotations: CHANGES_TEXT,
  timeoutHint: LSP_TIMEOUT_HINT,
  input: z
    .object({
      editor: editorArg,
      buffer: currentBufferArg,
      start_line: z.number().int().positive().optional().describe('With end_line: format these lines only.'),
      end_line: z.number().int().positive().optional(),
      ...lspApplyArgs,
    })
    .strict()
    .refine((a) => (a.start_line === undefined) === (a.end_line === undefined) && (a.start_line ?? 0) <= (a.end_line ?? 0), {
      message: 'give start_line and end_line together, start_line <= end_line',
      path: ['end_line'],
    })
    .refine(...needsTick()),
  output: z.object(lspEditResult),
});
