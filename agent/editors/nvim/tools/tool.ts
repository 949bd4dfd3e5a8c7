/**
 * What a Neovim tool is: a catalog entry, the Lua file that implements it (lua/<file>, compiled
 * into the editor at attach), and how the validated arguments become that Lua's parameters
 * (defaults and limits filled in from protocol/limits.ts, so the Lua never hard-codes them).
 */
import type { ToolInput, ToolSpec } from '../../../../protocol/index.ts';

/** One tool as the Neovim adapter runs it. */
export interface NvimTool {
  readonly spec: ToolSpec;
  /** File name under agent/editors/nvim/lua/. */
  readonly lua: string;
  /** The Lua parameters for arguments already validated against `spec.input`. */
  params(args: Record<string, unknown>): Record<string, unknown>;
}

/** Defines a tool with parameters typed from its spec; undefined parameters are left out. */
export function defineNvimTool<S extends ToolSpec>(tool: {
  spec: S;
  lua: string;
  params(args: ToolInput<S>): Record<string, unknown>;
}): NvimTool {
  return {
    spec: tool.spec,
    lua: tool.lua,
    // The cast is sound: Editor.run receives arguments already validated against spec.input.
    params: (args) => withoutUndefined(tool.params(args as ToolInput<S>)),
  };
}

/**
 * msgpack sends `undefined` as nil, which Lua receives inside a table as `vim.NIL` (truthy), not
 * as a missing key; absent parameters must be absent.
 */
function withoutUndefined(params: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
}
