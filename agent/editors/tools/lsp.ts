/**
 * What the lsp_* records share (lsp-definition.ts, lsp-references.ts, lsp-hover.ts,
 * lsp-symbols.ts, lsp-rename.ts): the parameters every LSP implementation takes (the position, the
 * caps, the server to name when a buffer has none), and the position as a prompt shows it. The
 * twin implementations share their helpers too: lua/lsp.lua (installed as util.lua is) and
 * autoload/vimrelay/util/lsp.vim.
 */
import { LSP_LIMITS, LSP_SERVER_HINTS } from '../../../protocol/index.ts';
import { LIST_BUDGET_BYTES } from './budget.ts';
import { bufferName } from './describe.ts';

/** A position as the lsp_* tools take it. */
export interface LspPosition {
  buffer?: number | string | undefined;
  line: number;
  col: number;
}

/** The parameters of every lsp_* implementation besides its own: the position (when it has one), caps and hints. */
export function lspParams(args: { buffer?: number | string | undefined; line?: number; col?: number }): Record<string, unknown> {
  return {
    buffer: args.buffer,
    line: args.line,
    col: args.col,
    servers: LSP_SERVER_HINTS,
    line_bytes: LSP_LIMITS.lineBytes,
    max_bytes: LIST_BUDGET_BYTES,
  };
}

/** `main.ts line 4, column 39` (or `the current buffer ...`), for previews. */
export function positionName(args: LspPosition): string {
  return `${bufferName(args.buffer)} line ${args.line}, column ${args.col}`;
}
