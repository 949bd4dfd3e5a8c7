/**
 * What this run could not get from the machine: the global set-up (setup/machine.ts) fetches a
 * program the tests need that PATH lacks, and names in VIMRELAY_TEST_UNAVAILABLE what it could
 * neither find nor fetch, with why and what to install. A test needing one skips with that reason.
 */
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
