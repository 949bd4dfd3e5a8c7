/**
 * The Lua this adapter runs inside Neovim, read once at startup from the `.lua` files beside this
 * module: lua/core.lua (the installer and the call dispatcher), lua/compat.lua (what differs
 * between Neovims), lua/util.lua (the helpers every tool shares), one file per tool implementation
 * (tools/tool.ts `impl`) and lua/paths.lua.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { EDITOR_IMPLS } from '../tools/index.ts';

const LUA_DIR = new URL('./lua/', import.meta.url);

/** The text of `lua/<file>`. Throws at startup when the file is missing. */
export function luaSource(file: string): string {
  return readFileSync(new URL(file, LUA_DIR), 'utf8');
}

/** What the permission prompt and the reviews share (lua/decision_ui.lua), put before each. */
const DECISION_UI = luaSource('decision_ui.lua');

/** The installer: `(helper_sources, tool_sources, channel, INSTALL_KEY)` -> editor info; see lua/core.lua. */
export const CORE_LUA = luaSource('core.lua');

/**
 * The helpers, installed in this order before the tools: lua/compat.lua (what differs between
 * Neovims), lua/util.lua, lua/lsp.lua for the lsp_* tools and lua/lsp_edit.lua for those that
 * edit, and lua/propose.lua for reviews.
 */
export const HELPER_SOURCES: readonly (readonly [string, string])[] = ['compat', 'util', 'lsp', 'lsp_edit', 'propose'].map((name) => [name, luaSource(`${name}.lua`)] as const);

/**
 * Implementation name -> Lua source, sent to each editor on attach: every tool implementation
 * (commit phases included), `paths` (lua/paths.lua: the files a call addresses, for the
 * permission policy) and `review_apply` (lua/review_apply.lua: what a user accepted in a review).
 */
export const TOOL_SOURCES: Readonly<Record<string, string>> = Object.fromEntries([...EDITOR_IMPLS, 'paths', 'review_apply'].map((impl) => [impl, luaSource(`${impl}.lua`)]));

/**
 * This version of the Lua, as the name of its install inside Neovim (`__vimrelay.installs[key]`,
 * lua/core.lua): another agent on the machine, of another version, installs its own beside it,
 * and each calls only its own.
 */
export const INSTALL_KEY = createHash('sha256')
  .update(JSON.stringify([CORE_LUA, HELPER_SOURCES, TOOL_SOURCES]))
  .digest('hex')
  .slice(0, 16);

/** This agent's install, in Lua. */
const INSTALL = `__vimrelay.installs['${INSTALL_KEY}']`;

/**
 * Runs one installed implementation: `(impl, params, channel?)` -> `{ok, data}` or `{ok, error}`,
 * or `{ok, pending}` when the answer will be the notification `vimrelay_answer` on `channel`.
 */
export const CALL_LUA = `return ${INSTALL}.call(...)`;

/** `(impl, params, opts, expect?)`: the edit tool run on a copy of its buffer, for a review; see lua/core.lua `M.propose_call`. */
export const PROPOSE_LUA = `return ${INSTALL}.propose_call(...)`;

/** Reviews: `(op, channel, id, spec)`; see lua/review.lua. */
export const REVIEW_LUA = `${DECISION_UI}\n${luaSource('review.lua')}`;

/** `(token)`: nobody waits for that deferred answer any more; see lua/core.lua `M.cancel`. */
export const CANCEL_LUA = `return ${INSTALL}.cancel(...)`;

/** The permission prompt: `(op, channel, id, lines)`; see lua/ask.lua. */
export const ASK_LUA = `${DECISION_UI}\n${luaSource('ask.lua')}`;

/** Re-reads the editor info the installer returned. */
export const INFO_LUA = `return ${INSTALL}.info()`;
