/**
 * lsp_code_actions: the fixes and rewrites a language server offers for a position or a range, with
 * the diagnostics there (textDocument/codeAction), each under an id the editor makes; with `id`,
 * that action's edits as a preview; with `apply`, made in the editor's buffers (PROTOCOL.md
 * "lsp_code_actions"). Its class depends on the arguments: a list or a preview reads, applying an
 * edit writes, and applying an action that runs a server command (workspace/executeCommand) is
 * `exec`, which the id says (`runsCommand`), and the editor checks it against the action it finds.
 */
import { z } from 'zod';
import { CHANGES_TEXT, defineTool, serverGuard } from '../tool.ts';
import { LSP_TIMEOUT_HINT, lspPositionArgs } from './lsp.ts';
import { lspApplyArgs, lspEditResult, needsTick } from './lsp-edits.ts';

/** Caps of lsp_code_actions. */
export const CODE_ACTION_LIMITS = {
  /** Actions listed at most (`truncated` past it). */
  maxActions: 100,
  /** An action's title is cut past this many bytes (at a character's start), in its listing and in its id. */
  titleBytes: 200,
  /** Kinds `kinds` may name, and their length. */
  maxKinds: 10,
  kindChars: 100,
  /** The longest id. */
  idChars: 300,
} as const;

/**
 * Whether the action an id names runs a server command: the editor makes ids of such actions start
 * with `x` (those of actions that only edit, with `e`), and refuses an id that says otherwise.
 */
export function runsCommand(id: unknown): boolean {
  return typeof id === 'string' && id.startsWith('x');
}

const L = CODE_ACTION_LIMITS;

export const lspCodeActions = defineTool({
  name: 'lsp_code_actions',
  title: 'Code actions (LSP)',
  description:
    'Fixes and refactors the language server offers at a position or range and for its diagnostics: `id` previews one, `apply` makes it ' +
    `(all or none, one undo step per buffer; exec if it runs a server \`command\`). Up to ${L.maxActions}. File creations, renames, deletions: refused. See lsp_format.`,
  permission: 'write',
  // A command runs what the server likes, as run_command runs what the model likes.
  permissionOf: (args) => (args.apply !== true ? 'read' : runsCommand(args.id) ? 'exec' : 'write'),
  routing: 'editor',
  annotations: CHANGES_TEXT,
  timeoutHint: LSP_TIMEOUT_HINT,
  input: z
    .object({
      ...lspPositionArgs,
      end_line: z.number().int().positive().optional().describe('Range end; default: line, col.'),
      end_col: z.number().int().positive().optional().describe('Exclusive; with end_line.'),
      kinds: z.array(serverGuard(z.string().min(1).max(L.kindChars))).max(L.maxKinds).optional().describe('Only these kinds and sub-kinds.'),
      id: serverGuard(z.string().min(1).max(L.idChars)).optional().describe('An action\'s id.'),
      ...lspApplyArgs,
    })
    .strict()
    .refine((a) => (a.end_line === undefined) === (a.end_col === undefined), { message: 'give end_line and end_col together', path: ['end_col'] })
    .refine((a) => a.apply !== true || a.id !== undefined, { message: 'apply needs the id of an action', path: ['id'] })
    .refine(...needsTick())
    .refine((a) => a.review !== true || !runsCommand(a.id), { message: 'an action that runs a server command cannot be reviewed', path: ['review'] }),
  output: z.object({
    actions: z
      .array(
        z.object({
          id: z.string().describe('to pass as id'),
          title: z.string().describe("the server's title"),
          kind: z.string().nullable().describe('quickfix, refactor.extract, source...'),
          preferred: z.boolean().describe('the one to pick'),
          command: z.string().nullable().describe('a server command it runs'),
          disabled: z.string().nullable().describe('why it cannot apply'),
        }),
      )
      .describe('with id: that one'),
    ...lspEditResult(),
    command_error: z.string().optional().describe('the command failed after its edits'),
  }),
});
