/**
 * `startServeHttp()`: the real `vimrelay serve --http` as a child process (environment as given,
 * typically `isolatedEnv()`), waiting for the MCP URL and access token it prints; with
 * `maxFiles`, under that limit of open file descriptors (`prlimit --nofile`, as `ulimit -n` sets
 * it). `stop()` sends SIGTERM, waits for the exit, and throws if serve printed a Node warning.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from './agent-process.ts';
import { assertNoNodeWarnings } from './node-warnings.ts';

export interface ServeHttpProcess {
  proc: ChildProcess;
  mcpUrl: string;
  token: string;
  /** Everything it wrote to stdout and to stderr so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** SIGTERM, and waits for the exit; then throws if serve printed a Node warning (helpers/node-warnings.ts). */
  stop(): Promise<number | null>;
}

const START_TIMEOUT_MS = 20_000;

export interface ServeHttpOptions {
  /** The process's limit of open file descriptors (soft and hard). */
  maxFiles?: number;
}

/** Starts `vimrelay serve --http ...args`; rejects if it exits or prints no URL in time. */
export async function startServeHttp(args: string[], env: NodeJS.ProcessEnv, options: ServeHttpOptions = {}): Promise<ServeHttpProcess> {
  const argv = [CLI, 'serve', '--http', ...args];
  // prlimit execs the command, so the pid is serve's own.
  const proc =
    options.maxFiles === undefined
      ? spawn(process.execPath, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('prlimit', [`--nofile=${options.maxFiles}:${options.maxFiles}`, process.execPath, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const printed = await new Promise<{ mcpUrl: string; token: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve --http printed no URL in time; stderr:\n${err}`)), START_TIMEOUT_MS);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve --http exited (${code}); stderr:\n${err}`));
    });
    proc.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const url = /^MCP URL: (\S+)$/m.exec(out)?.[1];
      const token = /^Access token: (\S+)$/m.exec(out)?.[1];
      if (url && token) {
        clearTimeout(timer);
        resolve({ mcpUrl: url, token });
      }
    });
  });
  return {
    proc,
    ...printed,
    stdout: () => out,
    stderr: () => err,
    exited,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      const code = await exited;
      assertNoNodeWarnings(err, 'vimrelay serve --http');
      return code;
    },
  };
}
