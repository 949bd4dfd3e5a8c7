/**
 * Global setup of both test runs: the tests' own temporary and XDG directories, where no running
 * vimrelay agent looks. An agent finds Neovims by the sockets under $XDG_RUNTIME_DIR, $TMPDIR and
 * /tmp (agent/editors/nvim/discovery.ts `defaultSocketDirs`; started without those variables, as
 * an MCP client starts `serve --stdio`, under /run/user/<uid>), so a user's `npm start` running
 * beside `npm test` would attach the Neovims the tests start (and log each), and the tests' files
 * would mix with the user's. Before any test file runs, this makes one directory outside every
 * place an agent of this user scans (in /var/tmp, else in test-artifacts/ of the checkout), sets
 * TMPDIR to it and the XDG directories inside it, and drops what would hand the tests the user's
 * own editor or relay (NVIM, NVIM_LISTEN_ADDRESS, VIMRELAY_OWNER_SECRET); every test process
 * inherits that (vitest builds its workers' environment after this runs), and the places a user's
 * agent scans are provided as `agentScans` (test/setup/hermetic.test.ts). It goes when the run ends.
 *
 * TMPDIR is sticky and open to every account, as /tmp is (the attack tests act as a second
 * account there); the XDG directories are this user's alone (0700).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import type { TestProject } from 'vitest/node';
import { defaultSocketDirs } from '../../agent/editors/nvim/discovery.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The directories a running agent of this user scans for Neovim sockets, as they were before this setup. */
    agentScans: string[];
  }
}

/** The places a user's agent scans: with this environment, and without it (an MCP client's `serve --stdio`). */
function scanned(): string[] {
  const dirs = [...defaultSocketDirs(process.env), ...defaultSocketDirs({})];
  return [...new Set(dirs.filter((d) => existsSync(d)).map((d) => realpathSync(d)))];
}

/** Whether `dir` is `root` or below it. */
export function within(dir: string, root: string): boolean {
  const rel = relative(root, dir);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Where the run's directory goes: the first candidate that no scanned directory holds. */
function base(roots: readonly string[]): string {
  const candidates = ['/var/tmp', join(import.meta.dirname, '..', '..', 'test-artifacts')];
  for (const candidate of candidates) {
    mkdirSync(candidate, { recursive: true });
    const real = realpathSync(candidate);
    if (!roots.some((root) => within(real, root))) return real;
  }
  throw new Error(`no place for the tests' temporary files outside what an agent scans (${roots.join(', ')})`);
}

let root: string | undefined;

export function setup(project: TestProject): void {
  const roots = scanned();
  root = mkdtempSync(join(base(roots), 'vimrelay-tests-'));
  chmodSync(root, 0o1777);
  const xdg = { XDG_RUNTIME_DIR: 'run', XDG_CONFIG_HOME: 'config', XDG_STATE_HOME: 'state', XDG_DATA_HOME: 'data', XDG_CACHE_HOME: 'cache' };
  for (const [variable, dir] of Object.entries(xdg)) {
    const path = join(root, dir);
    mkdirSync(path, { mode: 0o700 });
    process.env[variable] = path;
  }
  process.env.TMPDIR = root;
  for (const variable of ['NVIM', 'NVIM_LISTEN_ADDRESS', 'VIMRELAY_OWNER_SECRET']) delete process.env[variable];
  project.provide('agentScans', roots);
}

export function teardown(): void {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
}
