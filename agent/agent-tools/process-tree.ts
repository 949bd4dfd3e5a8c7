/**
 * What connect_editor needs to know of a process on this machine: its chain of parents, and the
 * Neovim server addresses its environment names. Reads only: /proc on Linux, `ps` elsewhere.
 * Never throws for a missing or foreign process; it is simply not there.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';

/** One process: its pid, its parent's, and its command name. */
export interface ProcessEntry {
  readonly pid: number;
  readonly ppid: number;
  readonly name: string;
}

/** Reads one process, or null when there is none with that pid (or it cannot be read). */
export type ProcessReader = (pid: number) => Promise<ProcessEntry | null>;

/** How long one `ps` may take (ms). */
const PS_TIMEOUT_MS = 2_000;

/**
 * `pid` and its ancestors, nearest first, at most `max` of them (a cycle or pid 0 ends the
 * chain). Empty when `pid` does not exist.
 */
export async function ancestry(pid: number, max: number, read: ProcessReader = readProcess): Promise<ProcessEntry[]> {
  const chain: ProcessEntry[] = [];
  const seen = new Set<number>();
  for (let next = pid; next > 0 && chain.length < max && !seen.has(next); ) {
    seen.add(next);
    const entry = await read(next);
    if (!entry) break;
    chain.push(entry);
    next = entry.ppid;
  }
  return chain;
}

/** The platform's reader: /proc/<pid>/stat on Linux, `ps` elsewhere. */
export const readProcess: ProcessReader = (pid) => (process.platform === 'linux' ? readProcStat(pid) : readPs(pid));

/** Linux: `/proc/<pid>/stat`, "pid (comm) state ppid ...". */
export async function readProcStat(pid: number): Promise<ProcessEntry | null> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // comm may hold spaces and parentheses: it runs from the first "(" to the last ")".
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const ppid = Number(text.slice(close + 2).split(' ')[1]);
  if (open < 0 || close < open || !Number.isInteger(ppid)) return null;
  return { pid, ppid, name: text.slice(open + 1, close) };
}

/** Any Unix: `ps -o ppid= -o comm= -p <pid>` (comm may be a path; its last component is kept). */
export function readPs(pid: number): Promise<ProcessEntry | null> {
  return new Promise((resolve) => {
    execFile('ps', ['-o', 'ppid=', '-o', 'comm=', '-p', String(pid)], { timeout: PS_TIMEOUT_MS }, (error, stdout) => {
      const m = error ? null : /^\s*(\d+)\s+(.+?)\s*$/.exec(stdout);
      resolve(m ? { pid, ppid: Number(m[1]), name: basename(m[2] ?? '') } : null);
    });
  });
}

/**
 * The Neovim server addresses in a process's environment: Neovim sets $NVIM to its server
 * address in its terminal jobs (0.7 included), and their children inherit it; $NVIM_LISTEN_ADDRESS
 * is read too, for setups that still export it. Linux only (`/proc/<pid>/environ`, readable for
 * the user's own processes); empty elsewhere.
 */
export async function serverAddressesOf(pid: number): Promise<string[]> {
  if (process.platform !== 'linux') return [];
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return [];
  }
  const addresses = new Set<string>();
  for (const entry of text.split('\0')) {
    const m = /^(?:NVIM|NVIM_LISTEN_ADDRESS)=(.+)$/.exec(entry);
    if (m?.[1]) addresses.add(m[1]);
  }
  return [...addresses];
}
