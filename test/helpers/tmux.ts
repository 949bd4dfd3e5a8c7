/**
 * `inTmux()`: a command in a real terminal, a detached tmux session on a tmux server of its own
 * (`-L`, no config file), at a fixed size; `screen()` is what the terminal shows now
 * (`capture-pane -p`), `keys()` types into it (`send-keys`, tmux key names such as `C-d`).
 * For what a user sees: a prompt drawn by Neovim or Vim, checked on the screen itself.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export interface Terminal {
  /** The screen's rows, as the terminal shows them now. */
  screen(): string[];
  /** Types `keys` (tmux key names: `o`, `C-d`, `Escape`, ...). */
  keys(...keys: string[]): void;
  stop(): void;
}

export interface TmuxOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Default 120 columns, 40 rows. */
  columns?: number;
  rows?: number;
}

/** Starts `command args` in a fresh tmux server; throws when tmux cannot. */
export function inTmux(command: string, args: string[], { env, cwd, columns = 120, rows = 40 }: TmuxOptions): Terminal {
  const server = `vimrelay-test-${randomBytes(6).toString('hex')}`;
  const tmux = (...tmuxArgs: string[]): string => {
    const r = spawnSync('tmux', ['-L', server, '-f', '/dev/null', ...tmuxArgs], { env, cwd, encoding: 'utf8', timeout: 10_000 });
    if (r.status !== 0) throw new Error(`tmux ${tmuxArgs[0]} failed: ${r.stderr}`);
    return r.stdout;
  };
  tmux('new-session', '-d', '-s', 'main', '-x', String(columns), '-y', String(rows), '--', command, ...args);
  return {
    screen: () => tmux('capture-pane', '-p', '-t', 'main').split('\n'),
    keys: (...keys) => void tmux('send-keys', '-t', 'main', ...keys),
    stop: () => void spawnSync('tmux', ['-L', server, 'kill-server'], { env, timeout: 10_000 }),
  };
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
