/**
 * The files a tool call addresses, as `Editor.paths` reports them to the permission policy (path
 * rules and never_read; README "Permissions"). Which files a call addresses is in each tool's
 * record (tools/tool.ts `Addressing`); both editors resolve them with one function (Neovim:
 * lua/paths.lua; Vim: autoload/vimrelay/paths.vim), which resolves buffer references exactly as
 * the tools do. This module holds what the adapters share: the parameters sent, and how the
 * answer is read.
 */
import { z } from 'zod';
import { ADDRESSING_ARGS, type Addressing } from './tools/tool.ts';

/** The parameters of the editors' `paths` function: the addressing and only the arguments it reads. */
export function pathsParams(addressing: Addressing, args: Record<string, unknown>): Record<string, unknown> {
  const picked: Record<string, unknown> = { addressing };
  for (const key of ADDRESSING_ARGS) if (args[key] !== undefined) picked[key] = args[key];
  return picked;
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
