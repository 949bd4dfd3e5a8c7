/**
 * The files a tool call addresses, as `Editor.paths` reports them to the permission policy
 * (issue 6: path rules and `never_read`). Both adapters ask their editor (Neovim:
 * lua/paths.lua; Vim: autoload/vimrelay/paths.vim), which resolves buffer references exactly as
 * the tools do; this module holds what they share: which arguments are sent, and how the answer
 * is read. The table both editor functions implement:
 *
 * | tool | paths |
 * |---|---|
 * | read_buffer, find_and_replace, apply_diff, substitute, undo, redo, save_buffer, highlight_range, add_virtual_text, clear_decorations | `buffer`, default the current buffer (clear_decorations with `all_buffers`: none) |
 * | write_buffer | `buffer`; a path that names no buffer yet still counts |
 * | set_cursor | `buffer`, default the buffer `window` (default the current window) shows |
 * | open_file | `path` |
 * | grep_buffers | each of `buffers`; when none are listed, every loaded buffer |
 * | get_diagnostics | `buffer`, or none |
 * | run_command, send_keys, send_to_terminal | the current buffer (commands and keys act on it) |
 * | get_state, get_state_brief, and tools that address no file | none |
 *
 * A buffer reference that names no buffer counts as the absolute path it names (relative to the
 * editor's cwd); a buffer number that names none, and buffers without a file name (unnamed,
 * terminal, quickfix, nofile, prompt), contribute nothing. Each file counts with its absolute
 * name and, when it differs, its real path (symlinks resolved), so a glob such as `.env*` also
 * catches a symlink to `.env`.
 */
import { z } from 'zod';

/** The only arguments the editor functions read; the rest (text, diffs) never cross for this. */
const ADDRESSING_ARGS = ['buffer', 'buffers', 'path', 'window', 'all_buffers'] as const;

/** The parameters of the editor's `paths` function for a call of `tool` with `args`. */
export function pathsParams(tool: string, args: Record<string, unknown>): { tool: string; args: Record<string, unknown> } {
  const picked: Record<string, unknown> = {};
  for (const key of ADDRESSING_ARGS) if (args[key] !== undefined) picked[key] = args[key];
  return { tool, args: picked };
}

// An empty Lua table reaches the agent as an empty map; either way it is no path.
const PathList = z.union([z.array(z.string()), z.object({}).strict().transform((): string[] => [])]);

const PathsResult = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), data: z.object({ paths: PathList }) }),
  z.object({ ok: z.literal(false), error: z.object({ message: z.string(), hint: z.string().optional() }).catchall(z.unknown()) }),
]);

/**
 * The paths in an editor's answer, deduplicated; throws with the editor's message (and hint, e.g.
 * to update a Vim plugin that predates `paths`) when it failed.
 */
export function parsePaths(raw: unknown): string[] {
  const result = PathsResult.safeParse(raw);
  if (!result.success) throw new Error('The editor returned a malformed list of paths.');
  if (!result.data.ok) {
    const { message, hint } = result.data.error;
    throw new Error(hint === undefined ? message : `${message} ${hint}`);
  }
  return [...new Set(result.data.data.paths)];
}
