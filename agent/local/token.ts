/**
 * The access token of `vimrelay serve --http`: 32 bytes from the CSPRNG, base64url, kept in
 * `$XDG_CONFIG_HOME/vimrelay/local-token` (0600 in a 0700 directory, written through a temp file
 * and a rename) and reused by later runs, so that a client configured once keeps working. Delete
 * the file to get a new token. The token is printed once at start and never logged. The Vim
 * token and the takeover key (relay/takeover.ts) are made and kept the same way.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { readOwnFile } from '../config/own-file.ts';
import { writePrivateFile } from '../config/private-file.ts';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** Where the token lives, under the config directory (`paths().configDir`). */
export function localTokenFile(configDir: string): string {
  return join(configDir, 'local-token');
}

/**
 * The stored token, or a new one stored first. A file that is not a token is an error (the user
 * may have put something else there), and so is one someone else could have written
 * (own-file.ts). A token readable by others is made private again.
 */
export function loadOrCreateLocalToken(file: string): string {
  const stored = readOwnFile(file);
  if (stored === undefined) {
    const token = randomBytes(32).toString('base64url');
    writePrivateFile(file, token + '\n');
    return token;
  }
  const token = stored.trim();
  if (!TOKEN.test(token)) throw new Error(`${file} does not hold a vimrelay token; delete it to make a new one`);
  return token;
}

/** Whether `presented` is `expected`, in time independent of where they differ (or their lengths). */
export function tokenMatches(presented: string, expected: string): boolean {
  const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
