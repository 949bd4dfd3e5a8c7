/**
 * What this run could not get from the machine: the global set-up (setup/machine.ts) fetches a
 * program the tests need that PATH lacks, and names in VIMRELAY_TEST_UNAVAILABLE what it could
 * neither find nor fetch, with why and what to install. A test needing one skips with that reason.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { TestRunner } from 'vitest';

/** Why `program` (or `vim-ale`) is not available to this run, or null when it is (on PATH, or fetched). */
export function unavailable(program: string): string | null {
  const all = JSON.parse(process.env.VIMRELAY_TEST_UNAVAILABLE ?? '{}') as Record<string, string>;
  return all[program] ?? null;
}

/**
 * Skips the running test, giving the reason, when `program` is not available; outside a test (in a
 * hook) throws that reason instead, so that nothing fails obscurely for want of it later.
 */
export function needProgram(program: string): void {
  const reason = unavailable(program);
  if (reason === null) return;
  TestRunner.getCurrentTest()?.context.skip(reason);
  throw new Error(reason);
}

/** The path of `program` in the directories of `path` (PATH's form), or undefined. */
export function onPath(program: string, path: string): string | undefined {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const file = join(dir, program);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}
