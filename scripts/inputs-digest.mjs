// A digest of what something is made from (the Worker's bundle: worker-bundle.ts; dist/:
// build.mjs), so that it is made again only when that changed. Plain JavaScript, as build.mjs is.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * SHA-256, in hex, of every file under `inputs` (paths relative to `root`, files or directories
 * walked in name order): each file's path from `root` and its contents. Symlinks are not followed.
 */
export function inputsDigest(root, inputs) {
  const hash = createHash('sha256');
  const add = (path) => {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory()) {
      for (const entry of readdirSync(path).sort()) add(join(path, entry));
    } else if (stat?.isFile()) {
      hash.update(relative(root, path)).update('\0').update(readFileSync(path)).update('\0');
    }
  };
  for (const input of inputs) add(join(root, input));
  return hash.digest('hex');
}
