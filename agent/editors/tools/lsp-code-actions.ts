/**
 * lsp_code_actions (lua/lsp_code_actions.lua, vimrelay/lsp_code_actions.vim; apply: lsp-edit.ts):
 * the server's code actions as a deferred answer; with `id`, that action's edits as a preview;
 * with `apply`, the editor keeps the edit (and the command it runs after it) under the answer's
 * token, the policy vets the files it changes, and a second call makes it, tick-guarded, then runs
 * the command, waiting for the server.
 */
import { CODE_ACTION_LIMITS, lspCodeActions, runsCommand } from '../../../protocol/index.ts';
import { lspParams, positionName } from './lsp.ts';
import { LSP_EDIT_REVIEW, lspEditCommit } from './lsp-edit.ts';
import { defineEditorTool } from './tool.ts';

/** The title an action id carries (lua/lsp_code_actions.lua makes them), or the id whole. */
function titleOf(id: string): string {
  return /^[ex][0-9a-f]{8}(?:\.\d+)?:([\s\S]*)$/.exec(id)?.[1] ?? id;
}

/** The list fits LIST_BUDGET_BYTES by its caps (CODE_ACTION_LIMITS); a preview's edits within it. */
export const lspCodeActionsTool = defineEditorTool({
  spec: lspCodeActions,
  impl: 'lsp_code_actions',
  answer: 'deferred',
  params: (args) => ({
    ...lspParams(args),
    end_line: args.end_line,
    end_col: args.end_col,
    kinds: args.kinds,
    id: args.id,
    expected_changedtick: args.expected_changedtick,
    // Kept for the second phase only when it will come.
    keep: args.apply === true,
    max_actions: CODE_ACTION_LIMITS.maxActions,
    title_bytes: CODE_ACTION_LIMITS.titleBytes,
  }),
  commit: lspEditCommit,
  addresses: 'buffer',
  // The diagnostics sent with the request, and an action's edits, show the buffer's text.
  neverRead: { refuses: true, filter: 'locations' },
  preview: (args) => {
    const where = `${positionName(args)}${args.end_line === undefined ? '' : ` to line ${args.end_line}, column ${args.end_col}`}`;
    if (args.id === undefined) return [`list the code actions at ${where}${args.kinds ? ` of kinds ${args.kinds.join(', ')}` : ''}`];
    const action = [`  ${titleOf(args.id)}`];
    if (args.apply !== true) return [`preview the edits of the code action at ${where}:`, ...action];
    return [
      `apply the code action at ${where}:`,
      ...action,
      ...(runsCommand(args.id)
        ? ['which runs a command of the language server; the editor\'s language client makes the edits the server sends back']
        : ['in every file its edit names (opened if needed, not saved)']),
    ];
  },
  review: LSP_EDIT_REVIEW,
});
