/**
 * An editor on a real terminal (tmux, helpers/tmux.ts) attached to an agent's adapter in the test
 * process, for the tests of what a user sees: `nvimOnScreen` (Neovim listening on a socket that an
 * NvimEditor attaches to) and `vimOnScreen` (Vim in Normal mode, connected to a Vim listener of the
 * test's). Each runs in an isolated home, with `files` written to its working directory and
 * `open` opened at startup (the first shown). `expr` evaluates a Vimscript expression in the
 * editor, for what the test reads besides the screen.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { attach } from 'neovim';
import type { Editor } from '../../agent/editors/editor.ts';
import { NvimEditor } from '../../agent/editors/nvim/editor.ts';
import type { VimEditor } from '../../agent/editors/vim/editor.ts';
import { isolatedHome } from './home.ts';
import { startTmux, type TmuxScreen } from './tmux.ts';
import { startVimAgent, vimArgs } from './vim.ts';
import { listeningOn, waitFor } from './wait.ts';

export interface OnScreen {
  kind: 'nvim' | 'vim';
  term: TmuxScreen;
  editor: Editor;
  /** The isolated home; the editor's working directory is `<home>/work`. */
  home: string;
  cwd: string;
  /** Evaluates a Vimscript expression in the editor. */
  expr<T = unknown>(expr: string): Promise<T>;
  stop(): Promise<void>;
}

export interface OnScreenOptions {
  files: Record<string, string>;
  open: string[];
  /** The terminal's size; default 120 x 40. */
  cols?: number;
  rows?: number;
}

const QUIET_LOGGER = { level: 'error', info() {}, warn() {}, error() {}, debug() {} };

function writeFiles(cwd: string, files: Record<string, string>): void {
  mkdirSync(cwd, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(cwd, name), text);
}

/** Neovim in tmux, listening on a socket the test attaches to. */
export async function nvimOnScreen({ files, open, cols, rows }: OnScreenOptions): Promise<OnScreen> {
  const { home, env } = isolatedHome('vimrelay-screen-');
  const cwd = join(home, 'work');
  writeFiles(cwd, files);
  const socket = join(home, 'nvim.sock');
  const term = startTmux({ command: ['nvim', '--clean', '-n', '--listen', socket, ...open], env, cwd, ...(cols ? { cols } : {}), ...(rows ? { rows } : {}) });
  await listeningOn(socket, 10_000, 'Neovim to listen');
  const editor = await NvimEditor.attach(socket, { signal: AbortSignal.timeout(10_000) });
  // `as never`: the option is typed as winston's Logger; the client only calls these methods.
  const client = attach({ socket, options: { logger: QUIET_LOGGER as never } });
  return {
    kind: 'nvim',
    term,
    editor,
    home,
    cwd,
    expr: (expr) => client.eval(expr) as never,
    stop: async () => {
      client.quit();
      await editor.close();
      await term.stop();
    },
  };
}

/** Vim in tmux, connected to a Vim listener of the test's. */
export async function vimOnScreen({ files, open, cols, rows }: OnScreenOptions): Promise<OnScreen> {
  const agent = await startVimAgent();
  const cwd = join(agent.home, 'work');
  writeFiles(cwd, files);
  const term = startTmux({ command: ['vim', ...vimArgs({ name: 'screen', normal: true, open })], env: agent.env, cwd, ...(cols ? { cols } : {}), ...(rows ? { rows } : {}) });
  const editor = await waitFor(() => agent.registry.list()[0], 10_000, 'Vim to connect');
  return {
    kind: 'vim',
    term,
    editor,
    home: agent.home,
    cwd,
    expr: (expr) => (editor as VimEditor).evaluate(expr, AbortSignal.timeout(10_000)) as never,
    stop: async () => (await term.stop(), await agent.stop()),
  };
}

/** Both editors, for `describe.each`. */
export const ON_SCREEN = [
  ['Neovim', nvimOnScreen],
  ['Vim', vimOnScreen],
] as const;
