/**
 * `tempDir()`: a fresh temporary directory, removed after the test file that made it (the setup
 * file test/setup/temp-dirs.ts runs `removeTempDirs` after all of its tests), or when the process
 * exits for one that runs outside the test runner (the benchmark). A test runner's worker may end
 * without an `exit` event, so the file's own end is what removes them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();

/** A fresh directory under the system's temporary directory, its name starting with `prefix`. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes every directory tempDir made so far. */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}

process.once('exit', removeTempDirs);
