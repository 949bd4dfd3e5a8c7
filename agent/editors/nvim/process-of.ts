/**
 * What the system says of a Neovim the agent cannot ask anything yet (it waits for its user: the
 * swap-file question as it starts, say; blocked.ts): which process listens on its socket, when
 * the socket's name does not say (Neovim 0.7 names its own `/tmp/nvimXXXXXX/0`), and that
 * process's working directory. Linux only, through procfs (proc(5): /proc/net/unix for the
 * socket's inode, /proc/<pid>/fd for the process holding it, among the user's own processes, and
 * /proc/<pid>/cwd); null elsewhere. Reads; never connects. Rare (only for a Neovim found waiting),
 * so it reads synchronously, bounded by the user's own processes.
 */
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { ownUid } from '../../config/trusted-path.ts';

/** The flag of a listening socket in /proc/net/unix (`__SO_ACCEPTCON`). */
const LISTENING = 0x10000;

/** The pid of the user's process listening on the unix socket at `path`, or null. */
export function socketOwner(path: string): number | null {
  const inodes = listeningInodes(path);
  if (inodes.size === 0) return null;
  const uid = ownUid();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  for (const pid of pids) {
    try {
      if (statSync(`/proc/${pid}`).uid !== uid) continue;
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        const m = /^socket:\[(\d+)\]$/.exec(target);
        if (m && inodes.has(m[1] ?? '')) return Number(pid);
      }
    } catch {
      // The process ended while we looked, or its fds are not ours to read.
    }
  }
  return null;
}

/** The working directory of process `pid`, or null when the system does not say. */
export function processCwd(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

/** The inodes of the listening unix sockets bound at `path` (/proc/net/unix: `Num RefCount Protocol Flags Type St Inode Path`). */
function listeningInodes(path: string): Set<string> {
  const found = new Set<string>();
  let table: string;
  try {
    table = readFileSync('/proc/net/unix', 'utf8');
  } catch {
    return found;
  }
  for (const line of table.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 8) continue;
    const [, , , flags, , , inode] = fields;
    // A path with spaces spans the remaining fields.
    if (fields.slice(7).join(' ') === path && (parseInt(flags ?? '0', 16) & LISTENING) !== 0 && inode) found.add(inode);
  }
  return found;
}
