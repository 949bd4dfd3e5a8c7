/**
 * The running agent's status file (`$XDG_STATE_HOME/vimrelay/status.json`), read by
 * `vimrelay status`, `vimrelay service status` and `:checkhealth vimrelay` (plugin/nvim), which
 * tells from `pid` whether the agent still runs, from `editors[].pid` whether it serves the
 * editor asking, and from `watching` where it looks for Neovim sockets. Holds no secrets, but says
 * what the user edits (editor names and directories): written 0600, as every file of the state
 * directory.
 */
import { z } from 'zod';
import { readOptionalFile, writePrivateFile } from './private-file.ts';

export const AgentStatus = z.object({
  pid: z.number().int(),
  relay_url: z.string(),
  state: z.string(),
  device: z.string().nullable(),
  reason: z.string().nullable(),
  editors: z.array(z.object({ id: z.string(), kind: z.string(), name: z.string(), cwd: z.string(), pid: z.number().int().nullable().optional() })),
  /** The directories discovery scans for Neovim sockets. */
  watching: z.array(z.string()).optional(),
  /** How many prompts and reviews wait for the user (decisions/book.ts); absent in files of older agents. */
  pending: z.number().int().nonnegative().optional(),
  /** The link's latest warnings (relay/connection.ts LinkWarning), newest last; absent when none. */
  warnings: z.array(z.object({ at: z.string(), message: z.string() })).optional(),
  updated_at: z.string(),
});
export type AgentStatus = z.infer<typeof AgentStatus>;

/**
 * What the newest `vimrelay serve` says of itself (`$XDG_STATE_HOME/vimrelay/serve.json`), for
 * `:checkhealth vimrelay`: serving locally, over which transport, to which editors. Removed by
 * that process when it exits.
 */
export const ServeStatus = z.object({
  pid: z.number().int(),
  transport: z.enum(['stdio', 'http']),
  url: z.string().nullable(),
  editors: AgentStatus.shape.editors,
  watching: z.array(z.string()),
  updated_at: z.string(),
});
export type ServeStatus = z.infer<typeof ServeStatus>;

export function writeStatus(file: string, status: AgentStatus | ServeStatus): void {
  writePrivateFile(file, JSON.stringify(status, null, 2) + '\n');
}

export function readStatus(file: string): AgentStatus | undefined {
  const text = readOptionalFile(file);
  if (text === undefined) return undefined;
  const parsed = AgentStatus.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : undefined;
}

/** The status of an agent that runs now: its process alive and not stopped (a killed agent's file stays behind). */
export function liveStatus(status: AgentStatus | undefined): AgentStatus | undefined {
  return status && status.state !== 'stopped' && isRunning(status.pid) ? status : undefined;
}

/** Whether a process with this pid exists (EPERM: it does, as another user's). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
