/**
 * vimrelay's own files (README "Permissions"): out of every tool's reach whatever the policy says,
 * `never_read: []` included. never-read.ts applies this rule before the policy's globs and in the
 * same places (so every result that would show a never_read file's text leaves these out too), and
 * also refuses every call that names one of them, open_file included: they are never opened.
 * They are:
 * - its config directory (`$XDG_CONFIG_HOME/vimrelay`: the device credentials, the local and Vim
 *   tokens, the policy), its state directory (`$XDG_STATE_HOME/vimrelay`: logs, the audit log,
 *   status files, the takeover key) and the Vim socket's directory (with the fresh ones made
 *   beside it when another account held its name: config/runtime-dirs.ts `vimSocketDir`);
 * - a relay checkout's secrets, wherever it is: any file named `.dev.vars` (the owner secret) and
 *   anything under a directory named `.wrangler` (the local relay's storage). The agent cannot tell
 *   its relay's checkout from another Worker's, and treats them all alike;
 * - the places its launcher names (`npm start`: its checkout's `.dev.vars`, and the relay's
 *   storage wherever `--persist-to` put it).
 * A file counts by its absolute name and by its real path (Editor.paths gives both, and the places
 * count by their real paths too; a file not made yet, by where it would land through symlinked
 * directories), `.` and `..` resolved, in either case; and by identity, as
 * never_read counts hard links: a regular file with more than one link whose device and inode are
 * those of a file in one of these places is that file under another name.
 * `ownByName` is the pure part; `OwnFiles` adds the real paths and the identity check.
 */
import { lstatSync, readdirSync, realpathSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, posix } from 'node:path';
import { fail, type ToolOutcome } from '../../protocol/index.ts';
import { paths } from '../config/paths.ts';
import { vimSocketDir } from '../config/runtime-dirs.ts';

/** Which of vimrelay's own places a file is in; PERMISSION_DENIED's `own_file`. */
export type OwnKind = 'config' | 'state' | 'runtime' | 'dev_vars' | 'wrangler' | 'relay_storage';

/** One of vimrelay's own places: a directory (everything under it) or a file. */
export interface OwnPlace {
  readonly path: string;
  readonly kind: OwnKind;
  /** Also everything whose path starts with `path` (the Vim socket's fresh directories, `<dir>-XXXXXX`). */
  readonly prefix?: boolean;
}

/** A file that is one of vimrelay's own: by its name, or (with `hardLinks`) as a hard link to one. */
export interface OwnHit {
  readonly path: string;
  readonly own: OwnKind;
  readonly hardLinks?: number;
}

/** What each kind of place holds, for the refusal's message. */
const WHAT: Record<OwnKind, string> = {
  config: 'its config directory (device credentials, tokens, the policy)',
  state: 'its state directory (logs, the audit log, status, the takeover key)',
  runtime: 'its runtime directory (the Vim socket)',
  dev_vars: 'a relay checkout\'s .dev.vars (the owner secret)',
  wrangler: 'a relay checkout\'s .wrangler storage (the local relay\'s data)',
  relay_storage: 'the local relay\'s storage',
};

/** The hint of every refusal: nothing the model or the policy can change. */
export const OWN_FILE_HINT =
  'vimrelay keeps its own secrets (credentials, tokens, its policy and logs, a relay\'s owner secret and storage) out of every tool\'s reach, whatever the policy says; nothing can allow it. Work without this file.';

/** Most directory entries the identity check walks through in all places together. */
const MAX_WALK_ENTRIES = 2_000;
/** Deepest directory level below a place that the identity check walks into. */
const MAX_WALK_DEPTH = 6;

/** The places of an agent that runs with `env`, and those its launcher adds. */
export function ownPlaces(env: NodeJS.ProcessEnv, extra: readonly OwnPlace[] = []): OwnPlace[] {
  const p = paths(env);
  const vim = vimSocketDir(env);
  return [
    { path: p.configDir, kind: 'config' },
    { path: p.stateDir, kind: 'state' },
    { path: vim, kind: 'runtime' },
    { path: `${vim}-`, kind: 'runtime', prefix: true },
    ...extra,
  ];
}

/**
 * Which own place the absolute `path` is in by its name (see the module header), or null. Pure:
 * it compares names only, `.` and `..` resolved, in either case.
 */
export function ownByName(path: string, places: readonly OwnPlace[]): OwnKind | null {
  const p = fold(path);
  for (const place of places) {
    const root = fold(place.path);
    if (p === root || p.startsWith(root === '/' ? '/' : `${root}/`) || (place.prefix === true && p.startsWith(root))) return place.kind;
  }
  const segments = p.split('/');
  if (segments[segments.length - 1] === '.dev.vars') return 'dev_vars';
  if (segments.slice(0, -1).includes('.wrangler')) return 'wrangler';
  return null;
}

/** `path` with `.` and `..` resolved and in lower case; a prefix place keeps its trailing `-`. */
function fold(path: string): string {
  return posix.resolve(path).toLowerCase();
}

/** The refusal of a call that would touch `hit`: what it is, `why` (what was refused), and OWN_FILE_HINT. */
export function ownRefusal(hit: OwnHit, why: string): ToolOutcome {
  const what = hit.hardLinks === undefined ? 'is one of vimrelay\'s own secret files' : `has ${hit.hardLinks} hard links and is one of vimrelay's own secret files under another name`;
  return fail('PERMISSION_DENIED', `${hit.path} ${what}, in ${WHAT[hit.own]}, which no tool ever reaches: ${why}.`, {
    own_file: hit.own,
    ...(hit.hardLinks === undefined ? {} : { hard_links: hit.hardLinks }),
    hint: OWN_FILE_HINT,
  });
}

/** vimrelay's own files on this machine: `match` says whether a call's files are among them. */
export class OwnFiles {
  readonly #places: readonly OwnPlace[];

  constructor(places: readonly OwnPlace[]) {
    this.#places = places;
  }

  /**
   * The first of `paths` (absolute names and real paths) that is one of vimrelay's own files, by
   * name (its places' real paths included) or by identity; null when none is.
   */
  async match(paths: readonly string[]): Promise<OwnHit | null> {
    if (paths.length === 0) return null;
    const places = this.#withRealPaths();
    for (const path of paths) {
      const own = ownByName(path, places);
      if (own) return { path, own };
    }
    for (const path of new Set(paths)) {
      const file = await statOf(path);
      if (file === null) {
        // A file a call would create: where it would land, through any symlinked directory on its way.
        const landing = await landingOf(path);
        const own = landing === null ? null : ownByName(landing, places);
        if (own) return { path, own };
        continue;
      }
      if (!file.isFile() || file.nlink < 2) continue;
      const own = identityOf(file, places);
      if (own) return { path, own, hardLinks: file.nlink };
    }
    return null;
  }

  /**
   * The places, and each again by its real path where that differs (a symlinked config
   * directory). The places are the agent's own few local directories: looked at synchronously,
   * a few microseconds each, where a round trip through libuv's thread pool per place would cost
   * every call far more.
   */
  #withRealPaths(): OwnPlace[] {
    const all: OwnPlace[] = [...this.#places];
    for (const place of this.#places) {
      // A prefix place names no file: its directory's real path, with its name after it.
      const dir = place.prefix === true ? realOf(dirname(place.path)) : null;
      const real = place.prefix === true ? dir && join(dir, basename(place.path)) : realOf(place.path);
      if (real !== null && real !== place.path) all.push({ ...place, path: real });
    }
    return all;
  }
}

/** The real path of `path`, or null when it does not exist. */
function realOf(path: string): string | null {
  try {
    return realpathSync.native(path);
  } catch {
    return null;
  }
}

/**
 * Where a file that does not exist yet would be made: the real path of its deepest existing
 * directory, with the rest of its name after it; null when that is its own name already.
 */
async function landingOf(path: string): Promise<string | null> {
  let dir = dirname(path);
  let rest = basename(path);
  for (;;) {
    try {
      const real = join(await realpath(dir), rest);
      return real === path ? null : real;
    } catch {
      if (dir === dirname(dir)) return null;
      rest = join(basename(dir), rest);
      dir = dirname(dir);
    }
  }
}

type FileId = { readonly dev: number; readonly ino: number };

async function statOf(path: string): Promise<(FileId & { isFile(): boolean; nlink: number }) | null> {
  try {
    return await stat(path);
  } catch {
    return null;
  }
}

/**
 * The kind of the place holding a regular file with `file`'s device and inode, walking each place
 * (bounded; synchronously, as #withRealPaths looks at them), or null.
 */
function identityOf(file: FileId, places: readonly OwnPlace[]): OwnKind | null {
  const budget = { entries: MAX_WALK_ENTRIES };
  for (const place of places) {
    if (place.prefix === true) continue;
    if (holds(place.path, file, 0, budget)) return place.kind;
  }
  return null;
}

/** Whether `path` (a file, or a directory walked without following symlinks) is or holds the file `file`. */
function holds(path: string, file: FileId, depth: number, budget: { entries: number }): boolean {
  const s = lstatSync(path, { throwIfNoEntry: false });
  if (!s) return false;
  if (s.isFile()) return s.dev === file.dev && s.ino === file.ino;
  if (!s.isDirectory() || depth > MAX_WALK_DEPTH) return false;
  let names: string[];
  try {
    names = readdirSync(path);
  } catch {
    return false;
  }
  for (const name of names) {
    if (--budget.entries < 0) return false;
    if (holds(join(path, name), file, depth + 1, budget)) return true;
  }
  return false;
}
