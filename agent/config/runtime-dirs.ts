/**
 * The user's runtime and temporary directories, where Neovim puts its sockets and the agent its
 * Vim socket: `$XDG_RUNTIME_DIR` and `$TMPDIR` when set, else the places they stand for when a
 * process starts without them (an MCP client may pass only HOME, PATH, SHELL and TERM): the
 * per-user runtime directory systemd-logind makes, `/run/user/<uid>` (XDG Base Directory spec,
 * "XDG_RUNTIME_DIR"), when it exists and is this user's; on macOS the per-user temporary
 * directory (`confstr(_CS_DARWIN_USER_TEMP_DIR)`, which `getconf DARWIN_USER_TEMP_DIR` prints:
 * what launchd sets $TMPDIR to). Whatever is found is only a place to look or to make a private
 * directory in; trusted-path.ts decides what in it may be used.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { ownUid } from './trusted-path.ts';

/** The directories derived for a process started without the variables. */
export interface DerivedDirs {
  /** `/run/user/<uid>` when it is a directory of this user's. */
  runtime?: string;
  /** macOS's per-user temporary directory. */
  temp?: string;
}

/** Where systemd-logind makes each user's runtime directory. */
const RUN_USER = '/run/user';

/** How long `getconf` may take (ms). */
const GETCONF_TIMEOUT_MS = 2_000;

/** Derives the directories as the header says; `runUser` and `platform` are for tests. */
export function deriveDirs(uid: number = ownUid(), runUser: string = RUN_USER, platform: NodeJS.Platform = process.platform): DerivedDirs {
  const dirs: DerivedDirs = {};
  const runtime = join(runUser, String(uid));
  try {
    const s = lstatSync(runtime);
    if (s.isDirectory() && s.uid === uid) dirs.runtime = runtime;
  } catch {
    // No such directory: the user has no login session runtime directory.
  }
  if (platform === 'darwin') {
    try {
      const temp = execFileSync('getconf', ['DARWIN_USER_TEMP_DIR'], { encoding: 'utf8', timeout: GETCONF_TIMEOUT_MS }).trim();
      if (temp.startsWith('/')) dirs.temp = temp.replace(/\/+$/, '');
    } catch {
      // No per-user temporary directory to be had: /tmp stays.
    }
  }
  return dirs;
}

let derived: DerivedDirs | undefined;

/** deriveDirs() for this process, computed once. */
export function derivedDirs(): DerivedDirs {
  derived ??= deriveDirs();
  return derived;
}

/** $XDG_RUNTIME_DIR, else the derived runtime directory, else undefined. */
export function runtimeDir(env: NodeJS.ProcessEnv, dirs: DerivedDirs = derivedDirs()): string | undefined {
  return env.XDG_RUNTIME_DIR || dirs.runtime;
}

/** $TMPDIR, else the derived temporary directory, else undefined (the system's `/tmp`). */
export function userTempDir(env: NodeJS.ProcessEnv, dirs: DerivedDirs = derivedDirs()): string | undefined {
  return env.TMPDIR || dirs.temp;
}

/**
 * The directory the agent's Vim socket goes in (editors/vim/rendezvous.ts): `vimrelay/` in the
 * runtime directory, else `vimrelay-<uid>/` in the temporary one. When another account holds that
 * name, the socket goes in a fresh directory beside it whose name starts with this one and `-`.
 */
export function vimSocketDir(env: NodeJS.ProcessEnv, dirs: DerivedDirs = derivedDirs()): string {
  const runtime = runtimeDir(env, dirs);
  return runtime ? join(runtime, 'vimrelay') : join(userTempDir(env, dirs) ?? '/tmp', `vimrelay-${ownUid()}`);
}
