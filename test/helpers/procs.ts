/**
 * This machine's processes as /proc lists them (proc(5)): the pid, state, process group and
 * session of each, read from /proc/<pid>/stat after its `comm` field (which may hold spaces and
 * parentheses). A process that ends while the list is read is left out.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcStat {
  pid: number;
  /** `R`, `S`, ...; `Z` for a zombie, which has ended and left only its exit status. */
  state: string;
  pgrp: number;
  session: number;
}

export function processes(): ProcStat[] {
  const found: ProcStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const [state = '', , pgrp, session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    found.push({ pid: Number(entry), state, pgrp: Number(pgrp), session: Number(session) });
  }
  return found;
}
