/**
 * lsp_rename (lua/lsp_rename.lua, vimrelay/lsp_rename.vim; apply: lsp-edit.ts): the server's edit
 * as a preview, as a deferred answer; with `apply`, the editor keeps the edit under the answer's
 * token, the policy vets the files it changes (never_read, path rules), and a second call makes
 * it, tick-guarded.
 */
import { lspRename } from '../../../protocol/index.ts';
import { lspParams, positionName } from './lsp.ts';
import { LSP_EDIT_REVIEW, lspEditCommit } from './lsp-edit.ts';
import { defineEditorTool } from './tool.ts';

/** The preview lists edits within LIST_BUDGET_BYTES; applying makes them all. */
export const lspRenameTool = defineEditorTool({
  spec: lspRename,
  impl: 'lsp_rename',
  answer: 'deferred',
  params: (args) => ({
    ...lspParams(args),
    new_name: args.new_name,
    expected_changedtick: args.expected_changedtick,
    // Kept for the second phase only when it will come.
    keep: args.apply === true,
  }),
  commit: lspEditCommit,
  addresses: 'buffer',
  // The old text shows the files it edits: their edits are left out of a preview, and an apply
  // that would change one is refused before it changes anything (CallGuard vetEdits).
  neverRead: { refuses: true, filter: 'locations' },
  preview: (args) => [
    `${args.apply === true ? 'rename' : 'preview renaming'} the symbol at ${positionName(args)} to:`,
    `  ${args.new_name}`,
    ...(args.apply === true ? ['in every file the language server names (opened if needed, not saved)'] : []),
  ],
  review: LSP_EDIT_REVIEW,
});
