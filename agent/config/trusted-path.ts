/**
 * Whether a path on this machine is the user's own and only theirs to change, checked as ssh and
 * gpg-agent check theirs (OpenSSH's `safe_path`): every directory from `/` down, and the file
 * itself, with lstat (a symlink is followed only after it passed the same checks, and its target
 * is checked again from `/`).
 *
 * A path is trusted when every directory on it is owned by root or by the user and is writable by
 * no one else — unless it is sticky (`/tmp`): in a sticky directory only an entry's owner may
 * rename or remove it, and the next entry is checked for its owner anyway — and the last entry is
 * of the kind asked for (a socket, a directory) and owned by the user themself, not by root. So
 * nobody but the user (and root) can have put the thing there or swap it while the agent uses it.
 *
 * Reads only. Never throws: an answer is `{ ok: true, path }` (the path with every symlink
 * resolved, to connect to or bind) or `{ ok: false, reason }`, the reason for the agent's debug
 * log — never for an MCP client, which is told only that the address is not one it may use.
 */
import { lstat, readlink } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';

/** What the last entry of the path must be. */
export type TrustedKind = 'socket' | 'directory';

/** The verdict on one path; see the module header. */
export type TrustVerdict = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly reason: string };

/** Symlinks followed at most on one path (Linux's own limit, MAXSYMLINKS). */
const MAX_SYMLINKS = 40;

const STICKY = 0o1000;

/** The uid the agent runs as (`process.getuid`; absent only where Node has no uids). */
export function ownUid(): number {
  return process.getuid?.() ?? -1;
}

/**
 * Checks `path` (made absolute from the agent's cwd) as the header says: a `kind` owned by `uid`
 * (default: the agent's own), on a path only root and `uid` can change.
 */
export async function checkTrusted(path: string, kind: TrustedKind, uid: number = ownUid()): Promise<TrustVerdict> {
  let pending = resolve(path).split(sep).filter((c) => c !== '');
  let current: string = sep;
  let symlinks = 0;
  let stats: Stats;
  try {
    stats = await lstat(current);
  } catch (error) {
    return { ok: false, reason: `cannot stat /: ${String(error)}` };
  }
  const root = directoryProblem(current, stats, uid);
  if (root) return { ok: false, reason: root };
  while (pending.length > 0) {
    const [name, ...rest] = pending as [string, ...string[]];
    const next = join(current, name);
    try {
      stats = await lstat(next);
    } catch (error) {
      return { ok: false, reason: `cannot stat ${next}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
    }
    if (stats.isSymbolicLink()) {
      if (!ownedByUs(stats, uid)) return { ok: false, reason: `${next} is a symlink owned by uid ${stats.uid}` };
      if (++symlinks > MAX_SYMLINKS) return { ok: false, reason: `too many symlinks on ${path}` };
      let target: string;
      try {
        target = await readlink(next);
      } catch (error) {
        return { ok: false, reason: `cannot read the symlink ${next}: ${String(error)}` };
      }
      // The target is checked from `/` again: what it names may lie anywhere.
      const absolute = isAbsolute(target) ? target : join(dirname(next), target);
      pending = [...resolve(absolute).split(sep).filter((c) => c !== ''), ...rest];
      current = sep;
      continue;
    }
    pending = rest;
    current = next;
    if (pending.length === 0) break;
    const problem = directoryProblem(current, stats, uid);
    if (problem) return { ok: false, reason: problem };
  }
  return lastProblem(current, stats, kind, uid) ?? { ok: true, path: current };
}

function ownedByUs(stats: Stats, uid: number): boolean {
  return stats.uid === 0 || stats.uid === uid;
}

/** Why a directory on the way may be changed by someone else, or null. */
function directoryProblem(dir: string, stats: Stats, uid: number): string | null {
  if (!stats.isDirectory()) return `${dir} is not a directory`;
  if (!ownedByUs(stats, uid)) return `${dir} is owned by uid ${stats.uid}`;
  if ((stats.mode & 0o022) !== 0 && (stats.mode & STICKY) === 0) return `${dir} is writable by others (mode ${(stats.mode & 0o7777).toString(8)}) and not sticky`;
  return null;
}

/** Why the last entry is not the user's own `kind`, or null (the verdict then is ok). */
function lastProblem(path: string, stats: Stats, kind: TrustedKind, uid: number): { ok: false; reason: string } | null {
  const isKind = kind === 'socket' ? stats.isSocket() : stats.isDirectory();
  if (!isKind) return { ok: false, reason: `${path} is not a ${kind}` };
  if (stats.uid !== uid) return { ok: false, reason: `${path} is owned by uid ${stats.uid}, not by this user (uid ${uid})` };
  if (kind === 'directory' && (stats.mode & 0o022) !== 0) return { ok: false, reason: `${path} is writable by others (mode ${(stats.mode & 0o7777).toString(8)})` };
  return null;
}
