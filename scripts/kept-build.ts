/**
 * Something the local relay builds from the project's sources and keeps until they change (the
 * Worker's bundle: worker-bundle.ts; the relay process's own script: relay-bundle.ts), under
 * `<dir>/<digest>/`, the digest being that of what it is built from (inputs-digest.mjs); a relay
 * started on unchanged sources reuses it. Relays started at once (the tests) may each build: each
 * in a directory of its own, renamed into place; a rename that finds the place taken leaves the
 * one there. When a new build is in place, other builds and unfinished ones (a relay stopped
 * while building) go once they are STALE_MS old: a relay starting on one has long read it.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** A kept build's directory name, or (with the suffix mkdtemp adds) an unfinished one's. */
const BUILD_DIR = /^[0-9a-f]{16}(-[\w]{6})?$/;

/** How old a build of other sources must be to be removed. */
const STALE_MS = 10 * 60_000;

/**
 * The directory under `dir` that holds what `build` makes from the sources of `digest` (16 hex
 * digits), built first unless it is kept there already; `made` names the file that `build` writes
 * last, whose presence says the build is whole.
 */
export async function keptBuild(dir: string, digest: string, made: string, build: (into: string) => Promise<void>): Promise<string> {
  const kept = join(dir, digest);
  if (existsSync(join(kept, made))) return kept;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const building = mkdtempSync(join(dir, `${digest}-`));
  try {
    await build(building);
    renameSync(building, kept);
  } catch (error) {
    // Another relay put the same build in place first: use that one.
    if (!existsSync(join(kept, made))) throw error;
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  for (const name of readdirSync(dir)) {
    const old = join(dir, name);
    if (BUILD_DIR.test(name) && name !== digest && Date.now() - (lstatSync(old, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > STALE_MS) rmSync(old, { recursive: true, force: true });
  }
  return kept;
}
