/**
 * The running agent's status file (`$XDG_STATE_HOME/vimrelay/status.json`), read by
 * `vimrelay status`. Holds no secrets.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { readOptionalFile } from './private-file.ts';

export const AgentStatus = z.object({
  pid: z.number().int(),
  relay_url: z.string(),
  state: z.string(),
  device: z.string().nullable(),
  reason: z.string().nullable(),
  editors: z.array(z.object({ id: z.string(), kind: z.string(), name: z.string(), cwd: z.string() })),
  updated_at: z.string(),
});
export type AgentStatus = z.infer<typeof AgentStatus>;

export function writeStatus(file: string, status: AgentStatus): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(status, null, 2) + '\n');
  renameSync(tmp, file);
}

export function readStatus(file: string): AgentStatus | undefined {
  const text = readOptionalFile(file);
  if (text === undefined) return undefined;
  const parsed = AgentStatus.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : undefined;
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
