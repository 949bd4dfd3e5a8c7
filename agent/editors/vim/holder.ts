/**
 * Which process serves the user's Vims, and the rule that decides it (README "Vim"; PROTOCOL.md
 * "Vim channel"). One process at a time holds the Vim socket (rendezvous.ts); it says who it is in
 * `$XDG_STATE_HOME/vimrelay/vim-holder.json` (0600: `{pid, role, relay}`), which `vimrelay
 * status`, `:VimRelayStatus` and the other processes' logs read.
 *
 * The rule: `vimrelay serve` yields the Vim socket to a running `vimrelay agent` of the same
 * state directory — the agent of a paired relay, which the user's assistants on other machines
 * reach — and takes it only while no agent runs: Vims then follow the agent whichever of the two
 * started first, and a serve kept alive by a desktop client never keeps them from the relay. The
 * agent asks by running: its status file (`status.json`, config/status.ts) names its pid. Both
 * files are read only when nobody but the user could have written them (own-file.ts), so another
 * account cannot make serve give the socket up. Neovims need no rendezvous: every process finds
 * them itself.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { readOwnFile } from '../../config/own-file.ts';
import { paths } from '../../config/paths.ts';
import { writePrivateFile } from '../../config/private-file.ts';
import { AgentStatus, isRunning } from '../../config/status.ts';

/** What a process that holds the Vim socket is. */
export const VimHolderRole = z.enum(['agent', 'serve']);
export type VimHolderRole = z.infer<typeof VimHolderRole>;

export const VimHolder = z.object({
  pid: z.number().int().positive(),
  role: VimHolderRole,
  /** The relay the agent is paired with; null for serve. */
  relay: z.string().max(2048).nullable(),
});
export type VimHolder = z.infer<typeof VimHolder>;

/** `$XDG_STATE_HOME/vimrelay/vim-holder.json` of `env`. */
export function holderFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(paths(env).stateDir, 'vim-holder.json');
}

export function writeHolder(file: string, holder: VimHolder): void {
  writePrivateFile(file, JSON.stringify(holder) + '\n');
}

/** The holder of the Vim socket while its process runs; undefined when none, or when the file is unreadable or another's. */
export function readHolder(file: string): VimHolder | undefined {
  const holder = VimHolder.safeParse(parseJson(ownText(file)));
  return holder.success && isRunning(holder.data.pid) ? holder.data : undefined;
}

/** Removes the holder file when it still names `pid`. */
export function removeHolder(file: string, pid: number): void {
  if (VimHolder.safeParse(parseJson(ownText(file))).data?.pid === pid) rmSync(file, { force: true });
}

/**
 * The running `vimrelay agent` that serve yields the Vim socket to (module header), from the
 * status file of `env`; undefined when none runs (or it is this process).
 */
export function agentToYieldTo(env: NodeJS.ProcessEnv = process.env): { pid: number; relay: string } | undefined {
  const status = AgentStatus.safeParse(parseJson(ownText(paths(env).status)));
  if (!status.success || status.data.state === 'stopped' || status.data.pid === process.pid || !isRunning(status.data.pid)) return undefined;
  return { pid: status.data.pid, relay: status.data.relay_url };
}

/** "vimrelay serve (pid 42)", "the agent of https://relay.example (pid 42)". */
export function describeHolder(holder: Pick<VimHolder, 'pid' | 'role' | 'relay'>): string {
  return holder.role === 'serve' ? `vimrelay serve (pid ${holder.pid})` : `the agent of ${holder.relay ?? 'a relay'} (pid ${holder.pid})`;
}

/** The file's text when it is the user's own; undefined when absent or not trusted (never obeyed then). */
function ownText(file: string): string | undefined {
  try {
    return readOwnFile(file);
  } catch {
    return undefined;
  }
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
