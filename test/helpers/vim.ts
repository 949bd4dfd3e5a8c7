/**
 * `startVimAgent()`: the agent's Vim listener (agent/editors/vim/listener.ts) in an isolated
 * temporary home (HOME, XDG_* and TMPDIR inside it), with a registry to watch; and `vim()` on it:
 * a real `vim -N -u NONE -i NONE -n -es` loading plugin/vim, with stdin held open (Vim in -es mode
 * exits at stdin EOF) and `:VimRelayConnect <name>` run at startup. Vims started with the same
 * agent share its XDG directories (so they find its token and port) but each has its own working
 * directory. `stop()` ends every Vim and the listener and removes the home. `startVim()` starts one
 * such Vim with a given environment, e.g. that of a `vimrelay agent` process, to connect to it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EditorRegistry } from '../../agent/editors/registry.ts';
import type { VimEditor } from '../../agent/editors/vim/editor.ts';
import { VimListener } from '../../agent/editors/vim/listener.ts';
import { waitFor } from './wait.ts';
import { isolatedHome } from './home.ts';
import { descendants, ended } from './procs.ts';

/** The plugin directory (what a `pack/<name>/start/vimrelay` package or vim-plug would add to 'runtimepath'). */
export const VIM_PLUGIN_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../plugin/vim');

const QUIT_GRACE_MS = 3_000;

export interface StartVimOptions {
  /** Files to create in its working directory, with their content. */
  files?: Record<string, string | Uint8Array>;
  /** Files to open at startup (first one shown), relative to the working directory. */
  open?: string[];
  /** The name given to :VimRelayConnect ('': none, so the cwd's tail, not chosen); null: do not connect. Default 'test'. */
  name?: string | null;
  /** The working directory's own name, under a fresh directory of the home (startVimAgent). Default `work<n>`. */
  dir?: string;
  /** Extra Ex commands run before the plugin loads (--cmd), e.g. settings of g:vimrelay_*. */
  cmds?: string[];
  /**
   * Run in Normal mode, reading keys from stdin as typed (Vim warns that in- and output are no
   * terminal, and goes on), instead of in Ex mode (-es): for what only a Normal-mode Vim shows,
   * such as a visual selection. `ex()` then types `<Esc>:` before the command. Default false.
   */
  normal?: boolean;
}

export interface VimFixture {
  pid: number;
  cwd: string;
  proc: ChildProcess;
  /** Resolves with the exit code (or null when killed by a signal). */
  exited: Promise<number | null>;
  /** Runs an Ex command by writing it to Vim's stdin (no answer; check its effect through a tool). */
  ex(command: string): void;
  /** Kills the process (SIGKILL by default), as a crash would. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Quits (`qa!`), waits for the exit (killing after a grace period). */
  stop(): Promise<void>;
}

export interface VimAgentFixture {
  home: string;
  env: NodeJS.ProcessEnv;
  registry: EditorRegistry;
  listener: VimListener;
  /** Starts a Vim that connects to this listener. */
  vim(options?: StartVimOptions): Promise<VimFixture>;
  /** The VimEditor for the Vim with this pid, once it has connected. */
  editorOf(vim: VimFixture): Promise<VimEditor>;
  /** Stops the listener only (the Vims keep running); `restart()` starts a new one. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The arguments of `vim` for `options` (files not included): plugin/vim loaded, :VimRelayConnect run. */
export function vimArgs(options: StartVimOptions): string[] {
  const name = options.name === undefined ? 'test' : options.name;
  const args = ['-N', '-u', 'NONE', '-i', 'NONE', '-n', ...(options.normal ? [] : ['-es'])];
  // Loaded before startup completes, as Vim loads an installed plugin (-u NONE loads none).
  const cmds = ['let g:vimrelay_reconnect_ms = 100', ...(options.cmds ?? []), `set rtp^=${VIM_PLUGIN_DIR}`, 'runtime plugin/vimrelay.vim'];
  for (const c of cmds) args.push('--cmd', c);
  if (name !== null) args.push('-c', name === '' ? 'VimRelayConnect' : `VimRelayConnect ${name}`);
  return [...args, ...(options.open ?? [])];
}

/**
 * Starts a Vim in `cwd` (which must exist) with exactly `env`: with the XDG directories of a
 * running agent (its listener's port and token files are found through them), it connects to that
 * agent. The caller stops it.
 */
export function startVim(env: NodeJS.ProcessEnv, cwd: string, options: StartVimOptions = {}): VimFixture {
  for (const [file, content] of Object.entries(options.files ?? {})) {
    mkdirSync(dirname(join(cwd, file)), { recursive: true });
    writeFileSync(join(cwd, file), content);
  }
  const proc = spawn('vim', vimArgs(options), { cwd, env, stdio: ['pipe', 'ignore', 'pipe'] });
  proc.stderr?.resume();
  proc.stdin?.on('error', () => {});
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const pid = proc.pid;
  if (pid === undefined) throw new Error('vim did not start');
  const alive = (): boolean => proc.exitCode === null && proc.signalCode === null;
  // What Vim started (ALE's and vim-lsp's servers, jobs), found before it goes; see nvim.ts.
  let family: number[] = [];
  const vim: VimFixture = {
    pid,
    cwd,
    proc,
    exited,
    ex: (command) => void proc.stdin?.write(options.normal ? `\x1b:${command}\r` : `${command}\n`),
    async kill(signal = 'SIGKILL') {
      if (alive()) {
        family = descendants(pid);
        proc.kill(signal);
      }
      await exited;
    },
    async stop() {
      if (alive()) {
        family = descendants(pid);
        vim.ex('qa!');
        const timer = setTimeout(() => proc.kill('SIGKILL'), QUIT_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }
      await ended(family, QUIT_GRACE_MS);
    },
  };
  return vim;
}

/** Starts a Vim listener in an isolated home. */
export async function startVimAgent(): Promise<VimAgentFixture> {
  const { home, env } = isolatedHome('vimrelay-vim-');
  const registry = new EditorRegistry();
  const vims: VimFixture[] = [];
  let count = 0;
  const fixture: VimAgentFixture = {
    home,
    env,
    registry,
    listener: await VimListener.start({ registry, env }),
    async vim(options = {}) {
      const cwd = options.dir === undefined ? join(home, `work${++count}`) : join(home, `w${++count}`, options.dir);
      mkdirSync(cwd, { recursive: true });
      const vim = startVim(env, cwd, options);
      vims.push(vim);
      return vim;
    },
    editorOf: (vim) =>
      waitFor(() => registry.get(`vim-${vim.pid}`) as VimEditor | undefined, 10_000, `Vim ${vim.pid} to connect`),
    async restart() {
      await fixture.listener.stop();
      fixture.listener = await VimListener.start({ registry, env });
    },
    async stop() {
      await Promise.all(vims.map((v) => v.stop()));
      await fixture.listener.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
  return fixture;
}
