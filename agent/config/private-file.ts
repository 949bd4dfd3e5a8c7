/**
 * Files that hold secrets: written 0600 (directory 0700) through a temp file and a rename, so a
 * reader never sees a half-written file and the secret is never world-readable, even briefly.
 * And the agent's own directories (the state directory of logs and status files): 0700, owned by
 * the user, narrowed when they were made wider.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Makes `dir` (and its missing parents) and leaves it 0700: a directory of the user's that others
 * may enter or read is narrowed. Throws when `dir` is not a directory of the user's own (a symlink,
 * a file, another user's directory): nothing private may go there.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const s = lstatSync(dir);
  const uid = process.getuid?.();
  if (!s.isDirectory() || (uid !== undefined && s.uid !== uid)) {
    throw new Error(`${dir} is not a directory of this user's; vimrelay keeps its logs and state only in one`);
  }
  if ((s.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

export function writePrivateFile(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(tmp, content, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

/** The file's text, or undefined when it does not exist. */
export function readOptionalFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
