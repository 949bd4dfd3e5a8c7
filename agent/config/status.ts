/**
 * The running agent's status file (`$XDG_STATE_HOME/vimrelay/status.json`), read by
 * `vimrelay status`. Holds no secrets, but says what the user edits (editor names and
 * directories): written 0600, as every file of the state directory.
 */
import { z } from 'zod';
import { readOptionalFile, writePrivateFile } from './private-file.ts';

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
  writePrivateFile(file, JSON.stringify(status, null, 2) + '\n');
}

export function readStatus(file: string): AgentStatus | undefined {
  const text = readOptionalFile(file);
  if (text === undefined) return undefined;
  const parsed = AgentStatus.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : undefined;
}
