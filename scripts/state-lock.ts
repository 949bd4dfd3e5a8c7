/**
 * One local relay per state directory. Two relays on one `--persist-to` (two `npm start` on
 * different ports in one checkout) share the Hub's SQLite: the second, finding none of the first's
 * sockets, deleted the first agent's editors, and the first relay answered NO_EDITOR from then on.
 * The relay process holds `relay.lock` in the state directory while it runs: its pid and port,
 * written with O_EXCL (a file made whole under a temporary name, then linked into place). Another
 * relay on that directory is refused, naming the holder, as a busy port is (local-relay.ts). A
 * lock whose process is gone (a relay killed with SIGKILL, the machine restarted) is stale and
 * taken over: the process must be alive and, where /proc tells (Linux), be a relay process of
 * this directory, so that a pid reused by another program does not hold the directory forever.
 */
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The lock's file name in the state directory. */
export const LOCK_FILE = 'relay.lock';

/** The relay process's script (relay-bundle.ts), by whose name its process is known. */
export const RELAY_SCRIPT = 'relay-process.mjs';

/** The relay that holds a state directory. */
export interface StateHolder {
  readonly pid: number;
  readonly port: number;
}

/** The state directory is in use by a live relay. */
export class StateInUse extends Error {
  constructor(
    readonly dir: string,
    readonly holder: StateHolder,
  ) {
    super(
      `the state directory ${dir} is in use by the vimrelay relay on port ${holder.port} (pid ${holder.pid}; another npm start?): ` +
        'stop it, or pass --persist-to another directory',
    );
  }
}

/** The live relay that holds `dir`, or null when none does (no lock, or a stale one). */
export function stateHolder(dir: string): StateHolder | null {
  const holder = readLock(join(dir, LOCK_FILE));
  return holder !== null && holds(holder.pid, dir) ? holder : null;
}

/**
 * Takes `dir` for this process, a relay listening on `port`; throws StateInUse when a live relay
 * holds it. Returns the release, which removes the lock while it is still this process's.
 */
export function lockState(dir: string, port: number): () => void {
  const lock = join(dir, LOCK_FILE);
  const mine: StateHolder = { pid: process.pid, port };
  const draft = `${lock}.${process.pid}`;
  writeFileSync(draft, `${JSON.stringify(mine)}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(draft, lock);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const held = readLock(lock);
      if (held !== null && holds(held.pid, dir)) throw new StateInUse(dir, held);
      if (attempt > 0) throw new Error(`cannot take ${lock}: another relay is taking it at the same moment`);
      // Stale: removed only if it is still the one just read (another relay may be taking it too).
      if (JSON.stringify(readLock(lock)) === JSON.stringify(held)) rmSync(lock, { force: true });
    }
  } finally {
    rmSync(draft, { force: true });
  }
  return () => {
    if (readLock(lock)?.pid === process.pid) rmSync(lock, { force: true });
  };
}

function readLock(path: string): StateHolder | null {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<StateHolder>;
    return Number.isInteger(value.pid) && Number.isInteger(value.port) ? { pid: value.pid as number, port: value.port as number } : null;
  } catch {
    return null;
  }
}

/** Whether process `pid` is alive and, where /proc tells, a relay process of `dir`. */
function holds(pid: number, dir: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: alive, another account's (it could not hold a 0700 directory of ours, but say so).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  let argv: string[];
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    // No /proc (macOS): the pid's life is all there is to go by.
    return true;
  }
  const at = argv.indexOf('--persist-to');
  return argv.some((arg) => arg.endsWith(RELAY_SCRIPT)) && at >= 0 && resolve(argv[at + 1] ?? '') === resolve(dir);
}
