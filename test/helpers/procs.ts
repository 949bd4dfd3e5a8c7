/**
 * This machine's processes as /proc lists them (proc(5)): the pid, state, parent, process group
 * and session of each, read from /proc/<pid>/stat after its `comm` field (which may hold spaces and
 * parentheses). A process that ends while the list is read is left out. Also: the processes one
 * started, and waiting for them to end (an editor's language servers outlive it by a moment, and
 * write into its temporary home meanwhile).
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcStat {
  pid: number;
  /** `R`, `S`, ...; `Z` for a zombie, which has ended and left only its exit status. */
  state: string;
  ppid: number;
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
    const [state = '', ppid, pgrp, session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    found.push({ pid: Number(entry), state, ppid: Number(ppid), pgrp: Number(pgrp), session: Number(session) });
  }
  return found;
}

/** The pids of the processes in process group `pgid`. */
export function groupPids(pgid: number): number[] {
  return processes()
    .filter((p) => p.pgrp === pgid)
    .map((p) => p.pid);
}

/** The running processes `pid` started, and the ones they started, and so on. */
export function descendants(pid: number): number[] {
  const all = processes().filter((p) => p.state !== 'Z');
  const found: number[] = [];
  for (let parents = [pid]; parents.length > 0; ) {
    parents = all.filter((p) => parents.includes(p.ppid)).map((p) => p.pid);
    found.push(...parents);
  }
  return found;
}

/** Resolves once none of `pids` runs (gone, or a zombie); after `graceMs`, kills those left with SIGKILL. */
export async function ended(pids: readonly number[], graceMs: number): Promise<void> {
  const running = (): number[] => {
    const live = new Set(processes().filter((p) => p.state !== 'Z').map((p) => p.pid));
    return pids.filter((pid) => live.has(pid));
  };
  const deadline = Date.now() + graceMs;
  for (let left = running(); left.length > 0; left = running()) {
    if (Date.now() > deadline) {
      for (const pid of left) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // ended meanwhile
        }
      }
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}
