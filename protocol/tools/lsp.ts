/**
 * What the lsp_* tools share (README "Code navigation"): the position they ask about, the ranges
 * and file locations they answer with, their caps and the hints naming a language server. Ranges
 * are 1-based lines and character columns, the end exclusive, whatever encoding the server uses:
 * the editor side converts once.
 */
import { z } from 'zod';
import { READ_ONLY } from '../tool.ts';
import { serverGuard } from '../tool.ts';
import { currentBufferArg, editorArg, maxResultsArg } from './common.ts';

/** Caps of the lsp_* tools. */
export const LSP_LIMITS = {
  /** Locations, references or symbols per page by default, and the most `max_results` may ask for. */
  defaultResults: 100,
  maxResults: 500,
  /** Lines of context each side of a definition. */
  contextLines: 2,
  /** A context or reference line is cut (at a character boundary) past this many bytes. */
  lineBytes: 400,
  /** Hover text is cut past this many bytes. */
  hoverBytes: 16_000,
  /** Longest symbol query and new name, in characters. */
  nameChars: 200,
} as const;

/**
 * Language servers to name in the hint when a buffer has none, by filetype. Both editors get the
 * entry for the buffer's filetype; Vim with ALE names ALE's own list instead.
 */
export const LSP_SERVER_HINTS: Readonly<Record<string, string>> = {
  typescript: 'typescript-language-server',
  typescriptreact: 'typescript-language-server',
  javascript: 'typescript-language-server',
  javascriptreact: 'typescript-language-server',
  python: 'pyright or pylsp',
  c: 'clangd',
  cpp: 'clangd',
  rust: 'rust-analyzer',
  go: 'gopls',
  lua: 'lua-language-server',
};

/** The TIMEOUT hint of every lsp_* tool: the request was cancelled in the server too. */
export const LSP_TIMEOUT_HINT = 'The language server did not answer in time (it may still be indexing the project); the request was cancelled. Retry in a few seconds.';

/** The fields every read-only lsp_* catalog entry shares. */
export const LSP_READ_TOOL = { permission: 'read', routing: 'editor', annotations: READ_ONLY, timeoutHint: LSP_TIMEOUT_HINT } as const;

/** The position a request is about: buffer, 1-based line, 1-based column in characters. */
export const lspPositionArgs = {
  editor: editorArg,
  buffer: currentBufferArg,
  line: z.number().int().positive().describe('Line of the name, 1-based.'),
  col: z.number().int().positive().describe('A column on the name, 1-based, in characters.'),
};

/** A range: 1-based lines and character columns, end exclusive (RANGE_TEXT says so). */
export const LspRange = {
  line: z.number().int().positive(),
  col: z.number().int().positive(),
  end_line: z.number().int().positive(),
  end_col: z.number().int().positive(),
};

/** How every LspRange counts, for the descriptions of the fields that hold one. */
export const RANGE_TEXT = '1-based, col in characters, end_col exclusive';

/** The buffer holding a file a result names, if one does. */
export const lspBuf = z.number().int().positive().nullable();

/** `server`, `total`, `truncated`, `cursor` and `withheld`, as every paged lsp_* result has them. */
export const lspPage = {
  server: z.string().describe('the language server that answered'),
  total: z.number().int().nonnegative().describe('results on all pages'),
  truncated: z.boolean().describe('more follow: pass cursor'),
  cursor: z.string().nullable().describe('for the next page; null: done'),
  withheld: z.number().int().nonnegative().describe("results in files the user's policy hides, left out"),
};

/** `max_results` and `cursor` of a paged lsp_* tool. */
export function lspPageArgs(noun: string) {
  return {
    max_results: maxResultsArg(noun, LSP_LIMITS.maxResults),
    cursor: serverGuard(z.string().max(5_000)).optional().describe('The previous page\'s cursor.'),
  };
}

/** The sentence on pages, for descriptions. */
export function lspPagesText(noun: string): string {
  return `Pages of max_results ${noun} (default ${LSP_LIMITS.defaultResults}, up to ${LSP_LIMITS.maxResults}): when \`truncated\`, pass \`cursor\`.`;
}

