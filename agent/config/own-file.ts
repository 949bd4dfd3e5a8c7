/**
 * Reading the files that steer the agent or hold its secrets (the policy, config.json,
 * credentials.json, local-token, vim-token) only when nobody but the user could have written them,
 * as ssh refuses an `authorized_keys` others can write (sshd `StrictModes`).
 *
 * The file's directory (the config directory) must be the user's: when it is and others may enter
 * or write it (made under umask 002, say), it is narrowed to 0700 first, as the state directory
 * is. The file itself must be owned by the user and writable by no one else; one that others can
 * only read is narrowed to 0600. Anything else is refused with UntrustedFileError, whose message
 * says what to fix (`chmod`, `chown`): the agent fails closed rather than obey a file another
 * account may have written. The file is checked on the descriptor it is read from, so what is
 * checked is what is read.
 */
import { chmodSync, closeSync, fchmodSync, fstatSync, lstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { shellQuote } from '../shell-quote.ts';
import { ownUid } from './trusted-path.ts';

/** A settings or secret file (or its directory) that someone other than the user could have written. */
export class UntrustedFileError extends Error {
  override name = 'UntrustedFileError';
}

/**
 * The text of `path`, or undefined when it (or its directory) does not exist; UntrustedFileError
 * when it or its directory could have been written by someone else (module header).
 */
export function readOwnFile(path: string): string | undefined {
  if (!checkOwnDir(dirname(path))) return undefined;
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const s = fstatSync(fd);
    if (!s.isFile()) throw new UntrustedFileError(`${path} is not a regular file; vimrelay reads its settings and secrets only from one`);
    const uid = ownUid();
    if (uid !== -1) {
      if (s.uid !== uid) throw new UntrustedFileError(notYours(path, s.uid, uid, '600'));
      if ((s.mode & 0o022) !== 0) throw new UntrustedFileError(writableByOthers(path, s.mode));
      if ((s.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether `dir` exists, once found to be the user's: narrowed to 0700 when wider; a symlink is
 * followed when it is the user's own. UntrustedFileError when it is someone else's, or no directory.
 */
export function checkOwnDir(dir: string): boolean {
  let link;
  try {
    link = lstatSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  const uid = ownUid();
  if (uid !== -1 && link.isSymbolicLink() && link.uid !== uid) throw new UntrustedFileError(notYours(dir, link.uid, uid, '700'));
  const s = link.isSymbolicLink() ? statSync(dir) : link;
  if (!s.isDirectory()) throw new UntrustedFileError(`${dir} is not a directory; vimrelay keeps its settings and secrets only in one`);
  if (uid === -1) return true;
  if (s.uid !== uid) throw new UntrustedFileError(notYours(dir, s.uid, uid, '700'));
  if ((s.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  return true;
}

function notYours(path: string, owner: number, uid: number, mode: string): string {
  const quoted = shellQuote(path);
  return `${path} is owned by uid ${owner}, not by you (uid ${uid}), so vimrelay does not trust it; if it is yours, take it back (chown ${uid} ${quoted} && chmod ${mode} ${quoted}), otherwise remove it`;
}

function writableByOthers(path: string, mode: number): string {
  return `${path} is writable by others (mode ${(mode & 0o777).toString(8)}), so vimrelay does not trust it; check what it says, then make it yours alone: chmod 600 ${shellQuote(path)}`;
}
