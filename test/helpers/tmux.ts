/**
 * `startTmux()`: a command (an editor) on a real terminal, in a tmux server of its own (its own
 * socket, no user configuration), `cols` x `rows`, so that a test reads what a user would see:
 * `screen()` is `tmux capture-pane -p`, the visible text, read without pressing any key;
 * `screenWithAttributes()` the same with the escape sequences of colours and attributes;
 * `cursor()` where the terminal's cursor is. `type()` and `key()` are a user typing. `stop()`
 * kills the server and everything in it, waits until every program of the pane has exited (an
 * editor writes its state files as it goes, and the test's directories are removed next), and
 * removes its socket (tmux leaves it behind).
 * `squeezed()` and `insideBorders()` find text on a screen whatever a window wrapped or framed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processes } from './procs.ts';
import { waitFor } from './wait.ts';
import { needProgram } from './machine.ts';

export interface TmuxScreen {
  /** The visible text of the pane, one string per row, trailing spaces trimmed. */
  screen(): string[];
  /** The rows with their colour and attribute escape sequences (`capture-pane -e`). */
  screenWithAttributes(): string[];
  /** The cursor's row and column, from 0. */
  cursor(): { row: number; col: number };
  /** Types `text` literally, as a user would. */
  type(text: string): void;
  /** Presses one key by tmux's name for it (`Escape`, `Enter`, `C-c`). */
  key(name: string): void;
  /** Resolves with the screen once `test` holds for it; fails with the last screen otherwise. */
  until(test: (rows: string[]) => boolean, what: string, timeoutMs?: number): Promise<string[]>;
  /** The pid of the pane's first process: the command itself, when given as a command and its arguments. */
  pid(): number;
  stop(): Promise<void>;
}

export interface StartTmuxOptions {
  /** A command line, run by tmux's shell (`sh -c`), or a command and its arguments, run as they are. */
  command: string | readonly string[];
  cwd: string;
  /** The environment of the tmux server, and so of the command (TERM is tmux's own). */
  env: NodeJS.ProcessEnv;
  cols?: number;
  rows?: number;
}

export function startTmux({ command, cwd, env, cols = 120, rows = 40 }: StartTmuxOptions): TmuxScreen {
  needProgram('tmux');
  const dir = mkdtempSync(join(tmpdir(), 'vimrelay-tmux-'));
  const socket = join(dir, 'tmux.sock');
  const tmux = (...args: string[]) => spawnSync('tmux', ['-S', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env });
  const started = tmux('new-session', '-d', '-x', String(cols), '-y', String(rows), '-c', cwd, ...(typeof command === 'string' ? [command] : ['--', ...command]));
  if (started.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`tmux did not start: ${started.stderr}`);
  }
  const screen = (): string[] => tmux('capture-pane', '-p').stdout.replace(/\n$/, '').split('\n').map((l) => l.trimEnd());
  return {
    screen,
    screenWithAttributes: () => tmux('capture-pane', '-p', '-e').stdout.replace(/\n$/, '').split('\n'),
    cursor: () => {
      const [row, col] = tmux('display-message', '-p', '#{cursor_y} #{cursor_x}').stdout.trim().split(' ').map(Number);
      return { row: row ?? -1, col: col ?? -1 };
    },
    type: (text) => void tmux('send-keys', '-l', text),
    key: (name) => void tmux('send-keys', name),
    async until(test, what, timeoutMs = 10_000) {
      let last: string[] = [];
      return waitFor(() => {
        last = screen();
        return test(last) ? last : undefined;
      }, timeoutMs, what).catch((err: unknown) => {
        throw new Error(`${String(err)}; the screen:\n${last.join('\n')}`);
      });
    },
    pid: () => Number(tmux('display-message', '-p', '#{pane_pid}').stdout.trim()),
    stop: async () => {
      // Each pane is a session of its own, led by the pane's first process.
      const sessions = tmux('list-panes', '-a', '-F', '#{pane_pid}').stdout.split('\n').map(Number).filter((pid) => pid > 0);
      tmux('kill-server');
      await waitFor(() => (sessions.every((sid) => !sessionRuns(sid)) ? true : undefined), 10_000, 'the programs in tmux to exit');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether a process of session `sid` still runs (a zombie has ended: only its exit status is left). */
function sessionRuns(sid: number): boolean {
  return processes().some((p) => p.session === sid && p.state !== 'Z');
}

/** The last row of `rows` that has anything on it (the command line), and the message on it
 * without the ruler and partial command Vim 9.1+ draws beside it by default ('ruler', 'showcmd'). */
export function commandLine(rows: readonly string[]): { message: string; ruler: boolean } {
  const row = [...rows].reverse().find((r) => r !== '') ?? '';
  const ruler = /\s(All|Top|Bot|\d+%)$/.test(row);
  return { message: ruler ? row.replace(/\s{2,}\S.*$/, '') : row, ruler };
}

/** The screen's text with every space and box-drawing character gone, for finding text a window wrapped. */
export function squeezed(rows: readonly string[]): string {
  return rows.join('').replace(/[\s\u2500-\u257f]/g, '');
}

/** The text inside a bordered window (a float, a popup) on the screen: what lies between each row's first and last vertical border, squeezed. */
export function insideBorders(rows: readonly string[]): string {
  return squeezed(
    rows.map((row) => {
      const chars = [...row];
      const first = chars.findIndex((c) => '│║┃'.includes(c));
      const last = chars.length - 1 - [...chars].reverse().findIndex((c) => '│║┃'.includes(c));
      return first >= 0 && last > first ? chars.slice(first + 1, last).join('') : '';
    }),
  );
}

/**
 * The background colour in effect where `text` last starts on a row of `screenWithAttributes()`:
 * its SGR parameters (`101`, `48;5;242`), or `default`. Read from the row's escape sequences, so that
 * a highlight shows whatever colour scheme the editor has.
 */
export function backgroundAt(row: string, text: string): string {
  const at = row.lastIndexOf(text);
  if (at < 0) throw new Error(`"${text}" is not on the row ${JSON.stringify(row)}`);
  let background = 'default';
  // SGR sequences: ESC [ params m.
  for (const [, params] of row.slice(0, at).matchAll(new RegExp(`${String.fromCharCode(27)}\\[([0-9;]*)m`, 'g'))) {
    const p = (params || '0').split(';').map(Number);
    for (let i = 0; i < p.length; i++) {
      const n = p[i] ?? 0;
      // 38 and 48 take 5;N or 2;R;G;B after them.
      const extended = p[i + 1] === 5 ? 2 : 4;
      if (n === 0 || n === 49) background = 'default';
      else if ((n >= 40 && n <= 47) || (n >= 100 && n <= 107)) background = String(n);
      else if (n === 48) {
        background = p.slice(i, i + 1 + extended).join(';');
        i += extended;
      } else if (n === 38) i += extended;
    }
  }
  return background;
}
