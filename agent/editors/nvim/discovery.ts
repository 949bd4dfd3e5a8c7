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
import { opendir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { derivedDirs, runtimeDir, userTempDir, type DerivedDirs } from '../../config/runtime-dirs.ts';

/** Neovim's fallback temp directory when $TMPDIR is unset (its `tempname()` base). */
const SYSTEM_TMP = '/tmp';

/** Directory entries one scan reads at most, across all roots. */
export const DEFAULT_MAX_ENTRIES = 4_096;

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
}

interface Pending {
  dir: string;
  depth: number;
  /** Some component below the root starts with "nvim". */
  matched: boolean;
}

/** What a scan found: the sockets, and the directories on `nvim` paths it read (to watch). */
export interface Scan {
  sockets: string[];
  /** Directories below a root whose path has a component starting with "nvim", as read. */
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
  let budget = maxEntries;
  for (let next = likely.shift() ?? others.shift(); next && budget > 0; next = likely.shift() ?? others.shift()) {
    if (next.matched) nvimDirs.push(next.dir);
    let dir: Dir;
    try {
      dir = await opendir(next.dir, { bufferSize: DIR_BUFFER });
    } catch {
      continue; // Unreadable, or removed meanwhile: nothing to find there.
    }
    try {
      // Read synchronously from the handle's buffer: an await per entry made a scan of 4,096
      // entries cost 2.5 times the CPU (85 against 33 ms), and one directory's entries, within
      // the budget, are a short read.
      for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
        if (budget-- <= 0) break;
        const path = join(next.dir, entry.name);
        const matched = next.matched || entry.name.startsWith('nvim');
        if (entry.isSocket()) {
          if (matched) found.add(path);
        } else if (entry.isDirectory() && next.depth + 1 < maxDepth && (matched || deep)) {
          (matched ? likely : others).push({ dir: path, depth: next.depth + 1, matched });
        }
      }
    } catch {
      // Removed while we looked: nothing more to find there.
    } finally {
      dir.closeSync();
    }
  }
  return { sockets: [...found], nvimDirs };
}

function unique(values: readonly (string | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v !== ''))];
}
