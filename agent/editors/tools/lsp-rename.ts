/**
 * lsp_rename (lua/lsp_rename.lua, vimrelay/lsp_rename.vim; apply: lua/lsp_rename_apply.lua,
 * vimrelay/lsp_rename_apply.vim): the server's edit as a preview, as a deferred answer; with
 * `apply`, the editor keeps the edit under the answer's token, the policy vets the files it
 * changes (never_read, path rules), and a synchronous second call makes it, tick-guarded.
 */
import { lspRename } from '../../../protocol/index.ts';
import { lspParams, positionName } from './lsp.ts';
import { defineEditorTool } from './tool.ts';

/** The files a preview lists. */
function changedFiles(data: Record<string, unknown>): string[] {
  const files = Array.isArray(data.files) ? (data.files as { path?: unknown }[]) : [];
  return files.flatMap((f) => (typeof f.path === 'string' ? [f.path] : []));
}

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
  commit: {
    impl: 'lsp_rename_apply',
    when: (args) => args.apply === true,
    // A preview lists every file, even when it stops listing edits (its budget counts files first).
    changes: changedFiles,
    params: (args, token, call) => ({ token, expected_changedtick: args.expected_changedtick, start_by: call.deadline }),
  },
  addresses: 'buffer',
  // The old text shows the files it edits: their edits are left out of a preview, and an apply
  // that would change one is refused before it changes anything (CallGuard vetEdits).
  neverRead: { refuses: true, filter: 'locations' },
  preview: (args) => [
    `${args.apply === true ? 'rename' : 'preview renaming'} the symbol at ${positionName(args)} to:`,
    `  ${args.new_name}`,
    ...(args.apply === true ? ['in every file the language server names (opened if needed, not saved)'] : []),
  ],
  // Under review, the second phase becomes lsp_rename_propose: each file's text with the edits made, nothing changed.
  review: { kind: 'commit', impl: 'lsp_rename_propose' },
});
