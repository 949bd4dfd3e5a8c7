/**
 * What the Node suites need from the machine, provided when it lacks it: each program of
 * scripts/editors/needs.ts (Neovim, Vim, tmux, clangd, pylsp, Chromium, systemd-analyze, git, ps,
 * pgrep) not on PATH is fetched from the machine's own release into `.cache/machine/`
 * (scripts/editors/machine.ts: unpacked, without root) and its wrappers put first on PATH; a Vim
 * under test without ALE on its
 * 'packpath' gets a wrapper adding the fetched vim-ale. Says what it fetched or reuses, and which
 * Neovim and Vim the run uses. What cannot be had (no archive to fetch from, say) is named with
 * what to install, and passed to the tests in VIMRELAY_TEST_UNAVAILABLE (program → reason; see
 * helpers/machine.ts), so that the tests needing it skip saying why.
 *
 * A vitest global set-up, after setup/editors.ts (whose newer editors, when a run names them, are
 * then on PATH): it runs once, before the test processes start, and they inherit its environment.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { delimiter } from 'node:path';
import { aleWrapper, ensureNeeds, fetchedNeed, type MachineOptions } from '../../scripts/editors/machine.ts';
import { NEEDS, type NeedName } from '../../scripts/editors/needs.ts';
import { onPath } from '../helpers/on-path.ts';

/** Whether the Vim at `vim` has ALE on its 'packpath' (Debian's vim-ale, or one of the user's). */
export function vimHasAle(vim: string): boolean {
  const probe = spawnSync(vim, ['-N', '-u', 'NONE', '-i', 'NONE', '-n', '-es', '-c', 'exe empty(globpath(&packpath, "pack/*/opt/ale")) ? "cquit" : "qall!"'], { stdio: 'ignore', timeout: 30_000 });
  return probe.status === 0;
}

export interface Provision {
  /** `path` with the fetched programs' directories first. */
  path: string;
  /** Lines saying what was fetched or reused, and from where. */
  said: string[];
  /** Programs (and `vim-ale`) neither found nor fetched, each with why and what to install. */
  unavailable: Record<string, string>;
}

/** Provides each of `names` missing from `path` (and ALE, when `vim` is among them); changes no environment. */
export function provide(names: readonly NeedName[], path: string, options: MachineOptions = {}): Provision {
  const said: string[] = [];
  const unavailable: Record<string, string> = {};
  const dirs: string[] = [];
  const fetch = (name: NeedName, programs: string[]): ReturnType<typeof ensureNeeds>[number] | undefined => {
    try {
      const before = fetchedNeed(name, options.cache);
      const [need] = ensureNeeds([name], options);
      if (need) said.push(`${programs.join(', ')}: not on PATH; ${before ? 'reusing' : 'fetched'} ${need.release}'s ${NEEDS[name].packages.join(', ')} (${Object.entries(need.packages).map(([p, v]) => `${p} ${v}`).join(', ')}) in ${need.bin}`);
      return need;
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      for (const program of programs) unavailable[program] = `${program} is not on PATH and could not be fetched (${why}): install the package ${NEEDS[name].packages.join(', ')}`;
      return undefined;
    }
  };
  for (const name of names) {
    if (name === 'vim-ale') continue;
    const missing = Object.keys(NEEDS[name].programs).filter((program) => !onPath(program, [...dirs, path].join(delimiter)));
    if (missing.length === 0) continue;
    const need = fetch(name, missing);
    if (need) dirs.unshift(need.bin);
  }
  const vim = onPath('vim', [...dirs, path].join(delimiter));
  if (names.includes('vim-ale') && vim && !vimHasAle(vim)) {
    const ale = fetch('vim-ale', ['vim-ale']);
    if (ale) dirs.unshift(aleWrapper(vim, ale));
  }
  return { path: [...dirs, path].join(delimiter), said, unavailable };
}

export default function setup(): void {
  // A Chromium of the user's own choosing (helpers/browser.ts) needs none from PATH.
  const names = (Object.keys(NEEDS) as NeedName[]).filter((name) => name !== 'chromium' || !process.env.CHROMIUM_PATH);
  const { path, said, unavailable } = provide(names, process.env.PATH ?? '', { log: (line) => process.stderr.write(`${line}\n`) });
  process.env.PATH = path;
  process.env.VIMRELAY_TEST_UNAVAILABLE = JSON.stringify(unavailable);
  for (const line of said) process.stderr.write(`for the tests: ${line}\n`);
  for (const why of Object.values(unavailable)) process.stderr.write(`missing for the tests: ${why}; the tests needing it are skipped\n`);
  for (const program of ['nvim', 'vim']) {
    let version: string;
    try {
      version = execFileSync(program, ['--version'], { encoding: 'utf8' }).split('\n')[0] ?? '';
    } catch {
      version = 'not found';
    }
    process.stderr.write(`editor under test: ${program}: ${version}\n`);
  }
}
