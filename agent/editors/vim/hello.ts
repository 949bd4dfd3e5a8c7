/**
 * The messages a Vim sends on its own (plugin/vim/autoload/vimrelay.vim): the hello that ends the
 * handshake (handshake.ts), and info updates after DirChanged/BufEnter. Pure: schemas and shaping.
 */
import { z } from 'zod';
import type { EditorWaiting, WireEditor } from '../../../protocol/index.ts';
import { VimProof } from './handshake.ts';

/** What the agent shows about a Vim, as the plugin reports it. */
export const VimInfo = z.object({
  cwd: z.string(),
  current_file: z.string().nullable(),
  pid: z.number().int().positive(),
  /** Whether it has a terminal or a GUI (not `vim -es`); absent from a plugin older than the field. */
  ui: z.boolean().optional(),
});
export type VimInfo = z.infer<typeof VimInfo>;

/** Vim's message after the agent proved itself; anything else (or a wrong proof) closes the channel. */
export const VimHello = VimInfo.extend({
  type: z.literal('hello'),
  /** Vim's proof that it holds the token (handshake.ts). */
  proof: VimProof,
  name: z.string().max(200),
  /** Whether the user chose `name` (:VimRelayConnect {name}, g:vimrelay_name), rather than the cwd's tail. */
  chosen: z.boolean(),
  /** Identifies the Vim process across reconnects. */
  instance: z.string().min(1).max(200),
  /** The name an agent last gave this Vim for `name` ('' or absent: none yet), asked for back (names.ts). */
  previous: z.string().max(200).optional(),
  /** `v:versionlong` (e.g. "9001378"), or `v:version` * 10000 where that is missing. */
  version: z.string().regex(/^\d+$/),
});
export type VimHello = z.infer<typeof VimHello>;

/** An info update. */
export const VimInfoMessage = VimInfo.extend({ type: z.literal('info') });

/** "9001378" -> "9.0.1378". */
export function vimVersion(versionlong: string): string {
  const n = Number(versionlong);
  return `${Math.floor(n / 1_000_000)}.${Math.floor(n / 10_000) % 100}.${n % 10_000}`;
}

/**
 * The WireEditor for a Vim, strings cut to the wire's limits; `waiting`: what it waits for its
 * user to answer; `startedAt`: when its process started (process-start.ts).
 */
export function wireVimEditor(id: string, version: string, name: string, info: VimInfo, waiting: EditorWaiting | null, startedAt: number | null): WireEditor {
  return {
    id,
    kind: 'vim',
    version: version.slice(0, 100),
    name: name.slice(0, 200),
    cwd: info.cwd.slice(0, 4096),
    current_file: info.current_file === null ? null : info.current_file.slice(0, 4096),
    pid: info.pid,
    waiting_for: waiting,
    ui: info.ui ?? null,
    started_at: startedAt,
  };
}
