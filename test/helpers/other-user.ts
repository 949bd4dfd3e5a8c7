/**
 * A second local account for the attack tests: uid and gid 65534 (`nobody`), reached with
 * `setpriv --reuid=65534 --regid=65534 --clear-groups`, which only root may do. `asOther` runs a
 * command as that account; `spawnAsOther` starts one. `OTHER_USER_SKIP` is the reason to skip
 * when the tests do not run as root (CI runs them as root), or null; `itAsOther` is a test that
 * is skipped for that reason, saying so in its name, and `describeAsOther` such a suite.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { describe, it } from 'vitest';

export const OTHER_UID = 65_534;

const SETPRIV = ['--reuid=65534', '--regid=65534', '--clear-groups'];

/** Why the attack tests cannot run here, or null when they can. */
export const OTHER_USER_SKIP: string | null =
  process.getuid?.() !== 0
    ? 'needs root, to act as a second local account (uid 65534) with setpriv'
    : spawnSync('setpriv', ['--version']).status !== 0
      ? 'needs setpriv (util-linux), to act as a second local account'
      : null;

/** Runs `command args` as uid 65534 to its end (in `env`, else this process's); its exit status and output. */
export function asOther(command: string, args: string[], options: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('setpriv', [...SETPRIV, command, ...args], {
    encoding: 'utf8',
    timeout: 30_000,
    cwd: options.cwd ?? '/',
    ...(options.input === undefined ? {} : { input: options.input }),
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Starts `command args` as uid 65534 (cwd `/` unless given); the caller ends it. */
export function spawnAsOther(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  return spawn('setpriv', [...SETPRIV, command, ...args], { cwd: '/', ...options });
}

/** A test that needs the second account: skipped, with the reason in its name, when not root. */
export function itAsOther(name: string, fn: () => Promise<void> | void, timeoutMs?: number): void {
  if (OTHER_USER_SKIP === null) it(name, fn, timeoutMs);
  else it.skip(`${name} (skipped: ${OTHER_USER_SKIP})`, fn);
}

/** A suite that needs the second account: skipped, hooks included, with the reason in its name, when not root. */
export function describeAsOther(name: string, fn: () => void): void {
  if (OTHER_USER_SKIP === null) describe(name, fn);
  else describe.skip(`${name} (skipped: ${OTHER_USER_SKIP})`, fn);
}
