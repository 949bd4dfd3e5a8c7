/**
 * The Lua this adapter runs inside Neovim, read once at startup from the `.lua` files beside this
 * module (lua/core.lua and one file per tool).
 */
import { readFileSync } from 'node:fs';

const LUA_DIR = new URL('./lua/', import.meta.url);

/** The text of `lua/<file>`. Throws at startup when the file is missing. */
export function luaSource(file: string): string {
  return readFileSync(new URL(file, LUA_DIR), 'utf8');
}

/** The installer: `(tool_sources, channel)` -> editor info; see lua/core.lua. */
export const CORE_LUA = luaSource('core.lua');

/** Runs one installed tool: `(name, params)` -> `{ok, data}` or `{ok, error}`. */
export const CALL_LUA = 'return __vimrelay.call(...)';

/** The permission prompt: `(op, channel, id, lines)`; see lua/ask.lua. */
export const ASK_LUA = luaSource('ask.lua');

/** Re-reads the editor info the installer returned. */
export const INFO_LUA = 'return __vimrelay.info()';
