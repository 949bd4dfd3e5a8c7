/**
 * The editor description the agent reports (WireEditor), built from what Neovim says about
 * itself: `nvim_get_api_info` (channel, version, API functions) and
 * `__vimrelay.installs[key].info()` (name, cwd, current file, pid). Pure: parses and shapes values.
 */
import { z } from 'zod';
import type { EditorWaiting, WireEditor } from '../../../protocol/index.ts';

const ApiInfo = z.tuple([
  z.number().int(),
  z.object({
    version: z.object({
      major: z.number().int(),
      minor: z.number().int(),
      patch: z.number().int(),
      prerelease: z.boolean().optional(),
    }),
    functions: z.array(z.object({ name: z.string() })),
  }),
]);

/** API functions the adapter relies on (all present since Neovim 0.7). */
export const REQUIRED_FUNCTIONS = ['nvim_exec_lua', 'nvim_buf_set_text', 'nvim_create_autocmd', 'nvim_create_augroup'] as const;

/** What the agent needs from `nvim_get_api_info`. */
export interface ApiSummary {
  channel: number;
  /** e.g. "0.7.2", or "0.11.0-dev" for a prerelease. */
  version: string;
  /** Required functions this Neovim lacks (none for a supported version). */
  missing: string[];
}

/** Reads the answer to `nvim_get_api_info`; throws when it is not one. */
export function parseApiInfo(raw: unknown): ApiSummary {
  const [channel, meta] = ApiInfo.parse(raw);
  const { major, minor, patch, prerelease } = meta.version;
  const have = new Set(meta.functions.map((f) => f.name));
  return {
    channel,
    version: `${major}.${minor}.${patch}${prerelease ? '-dev' : ''}`,
    missing: REQUIRED_FUNCTIONS.filter((f) => !have.has(f)),
  };
}

/** What lua/core.lua's `info()` returns. */
export const LuaInfo = z.object({
  name: z.string(),
  /** Whether the user chose the name (g:vimrelay_name), rather than the cwd's tail. */
  chosen: z.boolean(),
  cwd: z.string(),
  current_file: z.string().nullable(),
  pid: z.number().int(),
  /** Whether a UI is attached (`nvim_list_uis()`); absent where it was not asked (a Neovim that waits). */
  ui: z.boolean().optional(),
});
export type LuaInfo = z.infer<typeof LuaInfo>;

/**
 * The WireEditor for a Neovim, strings cut to the wire's limits; `waiting`: what it waits for its
 * user to answer; `startedAt`: when its process started (process-start.ts).
 */
export function wireEditor(id: string, version: string, info: LuaInfo, waiting: EditorWaiting | null, startedAt: number | null): WireEditor {
  return {
    id,
    kind: 'nvim',
    version: version.slice(0, 100),
    name: info.name.slice(0, 200),
    cwd: info.cwd.slice(0, 4096),
    current_file: info.current_file === null ? null : info.current_file.slice(0, 4096),
    pid: info.pid,
    waiting_for: waiting,
    ui: info.ui ?? null,
    started_at: startedAt,
  };
}
