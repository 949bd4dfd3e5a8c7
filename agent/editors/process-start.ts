/**
 * When a process started, for list_editors' `uptime_s`: Linux only, through procfs (proc(5):
 * `/proc/<pid>/stat` field 22, `starttime`, in clock ticks since boot, and `btime` of `/proc/stat`,
 * the boot in Unix seconds); null elsewhere or when the process is gone. Reads; read once per
 * editor, as it is attached (a start time does not change).
 */
import { readFileSync } from 'node:fs';

/**
 * Clock ticks a second in `starttime`: USER_HZ, which the kernel's ABI fixes at 100 on every
 * architecture Node runs on (proc(5), times(2)), whatever the kernel's own HZ.
 */
const USER_HZ = 100;

/** The Unix second the process `pid` started, or null when the system does not say. */
export function processStartedAt(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces or parentheses: the fields
    // after it begin past its last ')'; there field 3 is first, so field 22 is the 20th.
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const boot = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1];
    if (!Number.isInteger(ticks) || boot === undefined) return null;
    return Number(boot) + Math.floor(ticks / USER_HZ);
  } catch {
    return null;
  }
}
