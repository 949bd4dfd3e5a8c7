/**
 * Where Neovim servers are: the addresses in the environment ($NVIM, $NVIM_LISTEN_ADDRESS) and
 * the socket files Neovim creates under $XDG_RUNTIME_DIR, $TMPDIR and /tmp — e.g.
 * `/tmp/nvimXXXXXX/0` (0.7), `$XDG_RUNTIME_DIR/nvim.PID.0`, `/tmp/nvim.USER/XXXXXX/nvim.PID.0`.
 * A process started without those variables looks where they would point (runtime-dirs.ts:
 * `/run/user/<uid>`, macOS's per-user temporary directory). Finding only: nothing here connects,
 * and nothing here decides whose a socket is (the watcher does, trusted-path.ts). Work per scan
 * is bounded by `maxEntries`.
 */
import type { Dir } from 'node:fs';
import { opendir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { derivedDirs, runtimeDir, userTempDir, type DerivedDirs } from '../../config/runtime-dirs.ts';

/** Neovim's fallback temp directory when $TMPDIR is unset (its `tempname()` base). */
const SYSTEM_TMP = '/tmp';

/** Directory entries one scan reads at most, across all roots. */
export const DEFAULT_MAX_ENTRIES = 4_096;

/** Directories a scan opens at once. */
const OPEN_AT_ONCE = 32;

/** Entries a directory handle reads from the system at once. */
const DIR_BUFFER = 256;

/** How deep below a root a socket may be (root/a/b/socket is depth 3). */
export const DEFAULT_MAX_DEPTH = 3;

/**
 * The roots to scan by default: $XDG_RUNTIME_DIR, $TMPDIR and /tmp, without duplicates; for a
 * variable that is not set, the directory derived in its place (`dirs`, default derivedDirs()).
 */
export function defaultSocketDirs(env: NodeJS.ProcessEnv = process.env, dirs: DerivedDirs = derivedDirs()): string[] {
  return unique([runtimeDir(env, dirs), userTempDir(env, dirs), SYSTEM_TMP]);
}

/** The server addresses the environment names: $NVIM (0.8+) and $NVIM_LISTEN_ADDRESS (older). */
export function defaultSocketAddresses(env: NodeJS.ProcessEnv = process.env): string[] {
  return unique([env.NVIM, env.NVIM_LISTEN_ADDRESS]);
}

/** Bounds of one scan. */
export interface ScanOptions {
  /** Default DEFAULT_MAX_DEPTH. */
  maxDepth?: number;
  /** Default DEFAULT_MAX_ENTRIES. */
  maxEntries?: number;
  /**
   * Whether directories off the `nvim` paths are read too (default true). Neovim's own layouts
   * all have their `nvim` component right below the root; only a socket the user named `nvim…`
   * somewhere else needs the deep read, which costs most of a scan in a busy /tmp.
   */
  deep?: boolean;
  /**
   * What earlier scans read, kept by the caller from one scan to the next: a directory off the
   * `nvim` paths (not a root) that has not changed since (its mtime and ctime, ScanCache) is not
   * read again. The scan updates it; a deep scan also forgets the directories it no longer reaches.
   */
  cache?: ScanCache;
}

/** A directory entry as a scan saw it. */
interface Entry {
  name: string;
  kind: 'socket' | 'dir' | 'other';
}

/**
 * The entries of directories as read, by path, each with the directory's stamp (device, inode,
 * mtime and ctime) taken before it was read. Any entry made, removed or renamed
 * in a directory after that changes its stamp; so does one made in the same tick of the
 * filesystem's clock as the stamp, which is why a directory changed within RACY_MS of being
 * stamped is not kept (git's "racy" index entries, the same problem). A directory read only in
 * part (the scan's budget ran out in it) is kept with what was read, which serves a later scan
 * with no more budget left there.
 */
export type ScanCache = Map<string, { stamp: string; entries: readonly Entry[]; complete: boolean }>;

/** How recently a directory may have changed and still be kept in a ScanCache (ms). */
const RACY_MS = 2_000;

interface Pending {
  dir: string;
  depth: number;
  /** Some component below the root starts with "nvim". */
  matched: boolean;
}

/** What a scan found: the sockets, and the directories on `nvim` paths it read (to watch). */
export interface Scan {
  sockets: string[];
  /** Directories below a root whose path has a component starting with "nvim" that it could read. */
  nvimDirs: string[];
}

/**
 * Socket files at most `maxDepth` levels below each root whose path below the root has a
 * component starting with "nvim". Directories on such paths are read before the others, so the
 * entry budget goes to likely places first. Symlinks are not followed; unreadable directories are
 * skipped.
 */
export async function findSockets(roots: readonly string[], options: ScanOptions = {}): Promise<string[]> {
  return (await scanSockets(roots, options)).sockets;
}

/** findSockets, with the `nvim` directories the scan read too; `deep: false` reads only the roots and the `nvim` paths. */
export async function scanSockets(roots: readonly string[], options: ScanOptions = {}): Promise<Scan> {
  const { maxDepth = DEFAULT_MAX_DEPTH, maxEntries = DEFAULT_MAX_ENTRIES, deep = true } = options;
  const found = new Set<string>();
  const nvimDirs: string[] = [];
  const likely: Pending[] = [];
  const others: Pending[] = unique(roots.map((r) => resolve(r))).map((dir) => ({ dir, depth: 0, matched: false }));
  const cache = options.cache;
  // The roots and the `nvim` paths are read every time: they are few, they are what the watches
  // report changes in, and there a stale mtime (a filesystem that keeps one) must not hide a
  // Neovim. The cache serves the deep part, where the work is.
  const cacheable = (next: Pending): boolean => next.depth > 0 && !next.matched;
  const visited = new Set<string>();
  let budget = maxEntries;
  /** Takes in a directory's entries, in the order read, within the budget. */
  const take = (next: Pending, entries: Iterable<Entry>): void => {
    for (const entry of entries) {
      if (budget-- <= 0) break;
      const path = join(next.dir, entry.name);
      const matched = next.matched || entry.name.startsWith('nvim');
      if (entry.kind === 'socket') {
        if (matched) found.add(path);
      } else if (entry.kind === 'dir' && next.depth + 1 < maxDepth && (matched || deep)) {
        (matched ? likely : others).push({ dir: path, depth: next.depth + 1, matched });
      }
    }
  };
  while (budget > 0 && (likely.length > 0 || others.length > 0)) {
    // Stamped and opened together, then read one after the other: an await per directory, one
    // at a time, was most of a scan's CPU in a busy /tmp (each a round trip through the thread pool).
    const batch = (likely.length > 0 ? likely : others).splice(0, OPEN_AT_ONCE);
    const now = Date.now();
    const stamps = cache ? await Promise.all(batch.map((next) => (cacheable(next) ? stampOf(next.dir, now) : null))) : [];
    const kept = batch.map((next, i) => {
      const known = cache?.get(next.dir);
      const usable = known !== undefined && stamps[i] !== null && known.stamp === stamps[i] && (known.complete || known.entries.length >= budget);
      return usable ? known.entries : undefined;
    });
    const handles = await Promise.all(batch.map((next, i) => (kept[i] ? null : opendir(next.dir, { bufferSize: DIR_BUFFER }).catch(() => null))));
    for (const [i, next] of batch.entries()) {
      if (budget <= 0) {
        handles[i]?.closeSync();
        continue;
      }
      visited.add(next.dir);
      const entries = kept[i];
      if (entries) {
        if (next.matched) nvimDirs.push(next.dir);
        take(next, entries);
        continue;
      }
      const dir = handles[i];
      if (!dir) {
        cache?.delete(next.dir);
        // Unreadable (another account's `nvim.<user>` in a shared /tmp), or removed meanwhile:
        // nothing to find there, and nothing a watch could tell of.
        continue;
      }
      if (next.matched) nvimDirs.push(next.dir);
      try {
        const read = readAll(dir, budget);
        take(next, read.entries);
        const stamp = stamps[i];
        if (cache && stamp) cache.set(next.dir, { stamp, ...read });
        else cache?.delete(next.dir);
      } catch {
        cache?.delete(next.dir); // Removed while we looked: nothing more to find there.
      } finally {
        dir.closeSync();
      }
    }
  }
  if (cache && deep) for (const dir of cache.keys()) if (!visited.has(dir)) cache.delete(dir);
  return { sockets: [...found], nvimDirs };
}

/**
 * Up to `limit` entries of an open directory, and whether that was all of them. Read
 * synchronously from the handle's buffer: an await per entry made a scan of 4,096 entries cost
 * 2.5 times the CPU (85 against 33 ms), and one directory's entries, within the budget, are a
 * short read.
 */
function readAll(dir: Dir, limit: number): { entries: Entry[]; complete: boolean } {
  const entries: Entry[] = [];
  for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
    entries.push({ name: entry.name, kind: entry.isSocket() ? 'socket' : entry.isDirectory() ? 'dir' : 'other' });
    if (entries.length >= limit) return { entries, complete: dir.readSync() === null };
  }
  return { entries, complete: true };
}

/**
 * The stamp of the directory at `path` (ScanCache), or null when it changed within RACY_MS of
 * `now` or cannot be read. Milliseconds as doubles keep a fraction of a microsecond here.
 */
async function stampOf(path: string, now: number): Promise<string | null> {
  try {
    const st = await stat(path);
    if (!st.isDirectory() || now - st.mtimeMs < RACY_MS || now - st.ctimeMs < RACY_MS) return null;
    return `${st.dev}:${st.ino}:${st.mtimeMs}:${st.ctimeMs}`;
  } catch {
    return null;
  }
}

function unique(values: readonly (string | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v !== ''))];
}
