/**
 * The files a tool call addresses, as `Editor.paths` reports them to the permission policy (path
 * rules and never_read; README "Permissions"). Which files a call addresses is in each tool's
 * record (tools/tool.ts `Addressing`); both editors resolve them with one function (Neovim:
 * lua/paths.lua; Vim: autoload/vimrelay/paths.vim), which resolves buffer references exactly as
 * the tools do. This module holds what the adapters share: the parameters sent, and how the
 * answer is read.
 */
import { z } from 'zod';
import { fail, type ToolOutcome } from '../../protocol/index.ts';
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
  z.object({ ok: z.literal(false), error: z.object({ code: z.string().optional(), message: z.string(), hint: z.string().optional() }).catchall(z.unknown()) }),
]);

/** The call names a buffer that does not exist: the tool's own answer, before anyone is asked. */
export class NoSuchBuffer extends Error {
  constructor(readonly outcome: ToolOutcome) {
    super(outcome.ok ? 'no such buffer' : outcome.error.message);
  }
}

/**
 * The paths in an editor's answer, deduplicated. Throws NoSuchBuffer when the call names a buffer
 * that does not exist (BUFFER_NOT_FOUND, the tool's own answer), else with the editor's message
 * (and hint, e.g. to update a Vim plugin that predates `paths`) when it failed.
 */
export function parsePaths(raw: unknown): string[] {
  const result = PathsResult.safeParse(raw);
  if (!result.success) throw new Error('The editor returned a malformed list of paths.');
  if (!result.data.ok) {
    const { error } = result.data;
    if (error.code === 'BUFFER_NOT_FOUND') throw new NoSuchBuffer(fail('BUFFER_NOT_FOUND', error.message, error.hint === undefined ? {} : { hint: error.hint }));
    throw new Error(error.hint === undefined ? error.message : `${error.message} ${error.hint}`);
  }
  return [...new Set(result.data.data.paths)];
}
