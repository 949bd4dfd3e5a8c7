/**
 * lsp_format (lua/lsp_format.lua, vimrelay/lsp_format.vim; apply: lsp-edit.ts): the formatter's
 * edits as a deferred preview; with `apply`, kept and made by a second call, tick-guarded.
 */
import { lspFormat } from '../../../protocol/index.ts';
import { bufferName } from './describe.ts';
import { lspParams } from './lsp.ts';
import { LSP_EDIT_REVIEW, lspEditCommit } from './lsp-edit.ts';
import { defineEditorTool } from './tool.ts';

/** The preview lists edits within LIST_BUDGET_BYTES; applying makes them all. */
export const lspFormatTool = defineEditorTool({
  spec: lspFormat,
  impl: 'lsp_format',
  answer: 'deferred',
  params: (args) => ({
    ...lspParams(args),
    start_line: args.start_line,
    end_line: args.end_line,
    expected_changedtick: args.expected_changedtick,
    keep: args.apply === true,
  }),
  commit: lspEditCommit,
  addresses: 'buffer',
  neverRead: { refuses: true, filter: 'locations' },
  preview: (args) => {
    const what = `${bufferName(args.buffer)}${args.start_line === undefined ? '' : ` lines ${args.start_line} to ${args.end_line}`}`;
    return [`${args.apply === true ? 'format' : 'preview formatting'} ${what} with its language server`];
  },
  review: LSP_EDIT_REVIEW,
});
