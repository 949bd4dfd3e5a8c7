/**
 * What the records of the lsp_* tools that edit share (lsp-rename.ts, lsp-code-actions.ts,
 * lsp-format.ts): the second phase that makes the edit their first phase kept (lua/lsp_edit_apply.lua,
 * vimrelay/lsp_edit_apply.vim), with `apply`; the files it changes, which the policy vets first; and
 * the review that replaces it (lua/lsp_edit_propose.lua, vimrelay/lsp_edit_propose.vim).
 */
import type { CallControl } from '../call.ts';
import type { ReviewedAs } from './tool.ts';

/** The files a preview lists: every file, even when it stops listing edits (its budget counts files first). */
function changedFiles(data: Record<string, unknown>): string[] {
  const files = Array.isArray(data.files) ? (data.files as { path?: unknown }[]) : [];
  return files.flatMap((f) => (typeof f.path === 'string' ? [f.path] : []));
}

/** The commit phase of a record whose arguments have `apply` and `expected_changedtick`. */
export const lspEditCommit = {
  impl: 'lsp_edit_apply',
  when: (args: { apply?: boolean | undefined }): boolean => args.apply === true,
  changes: changedFiles,
  params: (args: { expected_changedtick?: number | undefined }, token: string, call: CallControl): Record<string, unknown> => ({
    token,
    expected_changedtick: args.expected_changedtick,
    start_by: call.deadline,
  }),
};

/** Under review, the second phase becomes lsp_edit_propose: each file's text with the edits made, nothing changed. */
export const LSP_EDIT_REVIEW: ReviewedAs = { kind: 'commit', impl: 'lsp_edit_propose' };
