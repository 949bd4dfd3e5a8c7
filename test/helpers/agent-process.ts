/**
 * `startAgentProcess()`: the real `vimrelay` CLI as a child process with an isolated XDG home,
 * enrolled against a test relay, discovering editors only under the given directories.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../scripts/local-relay.ts';
import { isolatedHome } from './home.ts';
import { assertNoNodeWarnings } from './node-warnings.ts';

export const CLI = join(ROOT, 'bin', 'vimrelay.js');

export interface AgentProcess {
  proc: ChildProcess;
  env: NodeJS.ProcessEnv;
  /** Everything the agent wrote to stderr so far. */
  output(): string;
  /** Resolves when stderr contains `text`. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
  /**
   * The exit code, once the agent has exited and all it wrote has been read: Node's 'exit' can
   * come before the last lines on its pipes ('close' comes after them).
   */
  exited: Promise<number | null>;
  /** SIGTERM, and waits for the exit; then throws if the agent printed a Node warning (helpers/node-warnings.ts). */
  stop(): Promise<void>;
}

/** An isolated environment: its own XDG config/state/runtime directories. */
export function isolatedEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...isolatedHome('vimrelay-home-').env, ...extra };
}

/** Runs a CLI command to completion. */
export function runCli(args: string[], env: NodeJS.ProcessEnv): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function startAgentProcess(args: string[], env: NodeJS.ProcessEnv): AgentProcess {
  const proc = spawn(process.execPath, [CLI, 'agent', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  const waiters: { test: (s: string) => boolean; resolve: () => void }[] = [];
  proc.stdout?.setEncoding('utf8');
  proc.stderr?.setEncoding('utf8');
  proc.stderr?.on('data', (chunk: string) => {
    err += chunk;
    for (const w of [...waiters]) if (w.test(err)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  const exited = new Promise<number | null>((resolve) => proc.once('close', (code: number | null) => resolve(code)));
  return {
    proc,
    env,
    output: () => err,
    exited,
    waitFor(text, timeoutMs = 20_000) {
      const test = (s: string): boolean => (typeof text === 'string' ? s.includes(text) : text.test(s));
      if (test(err)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`agent never logged ${String(text)}; it logged:\n${err}`)), timeoutMs);
        waiters.push({ test, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        await exited;
      }
      assertNoNodeWarnings(err, 'vimrelay agent');
    },
  };
}
