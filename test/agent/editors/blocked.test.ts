// An editor that waits for its user answers at once (agent/editors/blocked.ts): Neovim and Vim each
// run in a terminal (tmux), the test is the person at the keyboard, and each prompt is a real one:
// - "Press ENTER" after a two-line :echo, "-- More --" after a long listing, the swap-file
//   question (E325) of a file whose swap file an editor that crashed left (Neovim 0.10+ asks no
//   question for a running editor's: its nvim.swapfile autocommand edits anyway), and (Neovim) a
//   command half typed: a read,
//   an edit and a call through the Dispatcher and its policy answer EDITOR_BLOCKED saying what the
//   editor waits for, at once, not TIMEOUT at the deadline; the edit never runs, not even once the
//   user has answered (Neovim would have queued it); the editor lists `waiting_for` until it can
//   be asked again, then calls run.
// - A Neovim that starts at the swap-file question, on a socket whose name holds no pid (0.7's
//   own layout), is found, listed with its pid, cwd and `waiting_for`, and attached with the
//   agent's Lua as soon as the user answers; before, it was found only after they answered.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, type ToolOutcome } from '../../../protocol/index.ts';
import { Dispatcher } from '../../../agent/calls/dispatcher.ts';
import { controlWithin } from '../../../agent/editors/call.ts';
import type { Editor } from '../../../agent/editors/editor.ts';
import { NvimEditor } from '../../../agent/editors/nvim/editor.ts';
import { IN_TIME_MS } from '../../../agent/editors/nvim/in-time.ts';
import { NvimWatcher } from '../../../agent/editors/nvim/watcher.ts';
import { EditorRegistry } from '../../../agent/editors/registry.ts';
import { editorTool } from '../../../agent/editors/tools/index.ts';
import { parseArgs } from '../../../protocol/index.ts';
import { heldSocket, type HeldSocket } from '../../helpers/held-socket.ts';
import { isolatedHome } from '../../helpers/home.ts';
import { testGuard } from '../../helpers/policy.ts';
import { squeezed, startTmux, type TmuxScreen } from '../../helpers/tmux.ts';
import { startVimAgent, vimArgs, type VimAgentFixture } from '../../helpers/vim.ts';
import { listeningOn, waitFor } from '../../helpers/wait.ts';

/** Long enough that a call waiting on a prompt would end TIMEOUT, never EDITOR_BLOCKED, before the change. */
const CALL_MS = 20_000;

const TEXT = ['first line', 'second line', 'third line'];

interface OnScreen {
  kind: 'nvim' | 'vim';
  term: TmuxScreen;
  editor: Editor;
  /** The working directory, holding a.txt (shown) and b.txt. */
  cwd: string;
  /** A terminal beside the editor's, for a second editor of the same user (its swap files). */
  beside(command: readonly string[]): TmuxScreen;
  stop(): Promise<void>;
}

/** The editors run with swap files (no -n): the swap-file question needs them. */
function writeFiles(cwd: string): void {
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, 'a.txt'), `${TEXT.join('\n')}\n`);
  writeFileSync(join(cwd, 'b.txt'), 'the other file\n');
}

/**
 * Neovim 0.10+ answers the swap-file question itself ("edit anyway", W325) for a swap file of the
 * same user, by a default autocommand that a user's configuration may remove, as here (its group
 * is nvim_swapfile on 0.10, nvim.swapfile from 0.11; neither exists on older versions).
 */
const ASKS_SWAP = ['--cmd', 'silent! autocmd! nvim_swapfile', '--cmd', 'silent! autocmd! nvim.swapfile'];

async function nvimOnScreen(): Promise<OnScreen & { socket: string }> {
  const { home, env } = isolatedHome('vimrelay-blocked-');
  const cwd = join(home, 'work');
  writeFiles(cwd);
  const socket = join(home, 'nvim.sock');
  const term = startTmux({ command: ['nvim', '--clean', ...ASKS_SWAP, '--listen', socket, 'a.txt'], env, cwd });
  await listeningOn(socket, 10_000, 'Neovim to listen');
  const editor = await NvimEditor.attach(socket, { signal: AbortSignal.timeout(10_000) });
  const others: TmuxScreen[] = [];
  return {
    kind: 'nvim',
    term,
    editor,
    cwd,
    socket,
    beside(command) {
      const other = startTmux({ command, env, cwd });
      others.push(other);
      return other;
    },
    stop: async () => {
      await editor.close();
      for (const other of [term, ...others]) await other.stop();
    },
  };
}

async function vimOnScreen(): Promise<OnScreen> {
  const agent: VimAgentFixture = await startVimAgent();
  const cwd = join(agent.home, 'work');
  writeFiles(cwd);
  const args = vimArgs({ name: 'screen', normal: true, open: ['a.txt'] }).filter((a) => a !== '-n');
  const term = startTmux({ command: ['vim', ...args], env: agent.env, cwd });
  const editor = await waitFor(() => agent.registry.list()[0], 10_000, 'Vim to connect');
  const others: TmuxScreen[] = [];
  return {
    kind: 'vim',
    term,
    editor,
    cwd,
    beside(command) {
      const other = startTmux({ command, env: agent.env, cwd });
      others.push(other);
      return other;
    },
    stop: async () => {
      for (const other of [term, ...others]) await other.stop();
      await agent.stop();
    },
  };
}

function call(editor: Editor, tool: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
  const record = editorTool(tool);
  if (!record) throw new Error(`no editor tool ${tool}`);
  const parsed = parseArgs(record.spec, args);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.outcome));
  return editor.run(record, parsed.args, controlWithin(CALL_MS));
}

function errorOf(outcome: ToolOutcome | undefined): Record<string, unknown> {
  if (!outcome || outcome.ok) throw new Error(`expected an error, got ${JSON.stringify(outcome)}`);
  return outcome.error;
}

describe.each([
  ['Neovim', nvimOnScreen],
  ['Vim', vimOnScreen],
] as const)('%s waiting for its user', (_kind, start) => {
  let on: OnScreen;
  let dispatcher: Dispatcher;
  let seq = 0;
  const showing = (text: string, term: TmuxScreen = on.term): Promise<string[]> =>
    waitFor(() => {
      const rows = term.screen();
      return squeezed(rows).includes(text.replace(/\s/g, '')) ? rows : undefined;
    }, 10_000, () => `the screen to show ${text}; it shows:\n${term.screen().join('\n')}`);
  const waitingFor = (w: string | null): Promise<true> =>
    waitFor(() => (on.editor.info().waiting_for === w ? true : undefined), 10_000, `waiting_for to be ${String(w)}; it is ${String(on.editor.info().waiting_for)}`);
  /** The cursor's line, read through a tool once the editor can be asked. */
  const cursorLine = async (): Promise<number> => {
    const state = await call(on.editor, 'get_state_brief');
    if (!state.ok) throw new Error(JSON.stringify(state));
    const windows = state.data.windows as { role: string; cursor: { line: number } }[];
    return windows.find((w) => w.role === 'active')?.cursor.line ?? -1;
  };

  beforeAll(async () => {
    on = await start();
    dispatcher = new Dispatcher({ get: (id) => (id === on.editor.id ? on.editor : undefined) }, testGuard().guard);
    await showing('first line');
  });
  afterAll(() => on?.stop());
  afterEach(async () => {
    on.term.key('Escape');
    await waitingFor(null).catch(() => undefined);
  });

  /** Checks that the editor, at a prompt, refuses everything at once and runs nothing later. */
  async function refusesAtThePrompt(waiting: string, answer: () => void): Promise<void> {
    await waitingFor(null);
    const read = errorOf(await call(on.editor, 'read_buffer'));
    expect(read).toMatchObject({ code: 'EDITOR_BLOCKED', waiting_for: waiting });
    expect(String(read.message)).toMatch(/nothing was sent/);
    expect(on.editor.info().waiting_for).toBe(waiting);
    // An edit, and a call through the dispatcher (the policy asks which files it addresses first).
    expect(errorOf(await call(on.editor, 'set_cursor', { line: 3 }))).toMatchObject({ code: 'EDITOR_BLOCKED', waiting_for: waiting });
    const dispatched = await dispatcher.handle({ id: `blocked-${++seq}`, tool: 'set_cursor', editor: on.editor.id, args: { line: 2 }, scopes: [...ALL_SCOPES], client: 'claude-test', deadline_ms: CALL_MS });
    expect(errorOf(dispatched)).toMatchObject({ code: 'EDITOR_BLOCKED', waiting_for: waiting });
    // A review is not opened either (its popup or float would land in the middle of the prompt).
    await expect(on.editor.openReview(`blocked-review-${seq}`, { buf: 1, header: ['a review'], proposed: ['proposed'] }, AbortSignal.timeout(CALL_MS))).rejects.toMatchObject({ name: 'EditorBlocked', waitingFor: waiting });
    answer();
    await waitingFor(null);
    // Neither edit ran, not even once the editor could run what it had been sent.
    expect(await cursorLine()).toBe(1);
    const after = await call(on.editor, 'read_buffer');
    expect(after.ok && after.data.lines).toEqual(TEXT);
  }

  it('at "Press ENTER" answers EDITOR_BLOCKED (hit-enter) at once, and runs nothing after the user presses Enter', async () => {
    on.term.type(':echo "line one\\nline two"');
    on.term.key('Enter');
    await showing('Press ENTER');
    await refusesAtThePrompt('hit-enter', () => on.term.key('Enter'));
  });

  it('at "-- More --" answers EDITOR_BLOCKED (more), and runs nothing after the user quits it', async () => {
    on.term.type(':for i in range(1, 300) | echo "row " . i | endfor');
    on.term.key('Enter');
    await showing('-- More --');
    await refusesAtThePrompt('more', () => on.term.type('q'));
  });

  it('at the swap-file question of a file a crashed editor left answers EDITOR_BLOCKED (confirm), and runs nothing after the user answers', async () => {
    const other = on.beside(on.kind === 'nvim' ? ['nvim', '--clean', 'b.txt'] : ['vim', '-N', '-u', 'NONE', '-i', 'NONE', 'b.txt']);
    await showing('the other file', other);
    await crash(other);
    on.term.type(':edit b.txt');
    on.term.key('Enter');
    await showing('already exists');
    await waitingFor(null);
    // A read of the file being loaded would see it empty; an edit would go into it half made.
    expect(errorOf(await call(on.editor, 'read_buffer', { buffer: 'b.txt' }))).toMatchObject({ code: 'EDITOR_BLOCKED', waiting_for: 'confirm' });
    expect(errorOf(await call(on.editor, 'write_buffer', { buffer: join(on.cwd, 'c.txt'), text: 'made at the question' }))).toMatchObject({ code: 'EDITOR_BLOCKED' });
    expect(on.editor.info().waiting_for).toBe('confirm');
    // (E)dit anyway.
    on.term.type('e');
    await waitingFor(null);
    const read = await call(on.editor, 'read_buffer', { buffer: 'b.txt' });
    expect(read.ok && read.data.lines).toEqual(['the other file']);
    expect(errorOf(await call(on.editor, 'read_buffer', { buffer: join(on.cwd, 'c.txt') }))).toMatchObject({ code: 'BUFFER_NOT_FOUND' });
    on.term.type(':edit a.txt');
    on.term.key('Enter');
    await showing('first line');
  });
});

describe('Neovim in the middle of a command the user types', () => {
  let on: OnScreen & { socket: string };
  let held: HeldSocket;
  let behind: Editor;
  beforeAll(async () => {
    on = await nvimOnScreen();
    held = await heldSocket(join(on.cwd, '..', 'held.sock'), on.socket);
    behind = await NvimEditor.attach(held.path, { signal: AbortSignal.timeout(10_000) });
  });
  afterAll(async () => {
    await behind?.close();
    await held?.close();
    await on?.stop();
  });

  it('answers EDITOR_BLOCKED (keys) while a count waits for its command, and runs again once it is typed', async () => {
    on.term.type('2');
    await waitFor(async () => {
      const outcome = await call(on.editor, 'read_buffer');
      return outcome.ok ? undefined : outcome;
    }, 10_000, 'the count to hold Neovim').then((outcome) => expect(errorOf(outcome)).toMatchObject({ code: 'EDITOR_BLOCKED', waiting_for: 'keys' }));
    on.term.type('j');
    await waitFor(() => (on.editor.info().waiting_for === null ? true : undefined), 10_000, 'Neovim to be asked again');
    const read = await call(on.editor, 'read_buffer');
    expect(read.ok && read.data.lines).toEqual(TEXT);
  });

  /** A write_buffer of `text` through `held`, its request held back on its way: what it will answer. */
  async function heldEdit(text: string): Promise<{ edit: Promise<ToolOutcome> }> {
    const read = await call(behind, 'read_buffer');
    if (!read.ok) throw new Error(JSON.stringify(read));
    held.hold('nvim_exec_lua');
    const edit = call(behind, 'write_buffer', { buffer: join(on.cwd, 'a.txt'), text, expected_changedtick: read.data.changedtick });
    await waitFor(() => (held.holding() ? true : undefined), 10_000, 'the edit on its way');
    return { edit };
  }

  // The gap between the check and the request: Neovim said it could be asked, then its user
  // typed a count before the edit arrived. Neovim queues the edit until the command is typed;
  // the call must not wait for that, nor the edit run then.
  it('answers EDITOR_BLOCKED (keys) for an edit that reaches Neovim after its user began a command, and the edit never runs', async () => {
    const { edit } = await heldEdit('made behind the user');
    on.term.type('2');
    await waitFor(async () => ((await call(on.editor, 'read_buffer')).ok ? undefined : true), 10_000, 'the count to hold Neovim');
    held.release();
    expect(errorOf(await edit)).toMatchObject({ code: 'EDITOR_BLOCKED', waiting_for: 'keys' });
    on.term.type('j');
    await waitFor(() => (on.editor.info().waiting_for === null ? true : undefined), 10_000, 'Neovim to be asked again');
    // Neovim runs requests in the order they came: the edit, had it run, would be in this read.
    const read = await call(behind, 'read_buffer');
    expect(read.ok && read.data.lines).toEqual(TEXT);
  });

  it('runs once an edit Neovim could start only after its window, busy with other work', async () => {
    const { edit } = await heldEdit('made late');
    await new Promise((resolve) => setTimeout(resolve, IN_TIME_MS * 1.5));
    held.release();
    expect((await edit).ok).toBe(true);
    const read = await call(on.editor, 'read_buffer');
    expect(read.ok && read.data.lines).toEqual(['made late']);
    expect((await call(on.editor, 'undo')).ok).toBe(true);
    const undone = await call(on.editor, 'read_buffer');
    expect(undone.ok && undone.data.lines).toEqual(TEXT);
  });
});

/**
 * Ends the editor in `term` as a crash would (SIGKILL) with a change unsaved, kept in its swap
 * file by :preserve (an unchanged one's swap file the next editor would delete without asking).
 */
async function crash(term: TmuxScreen): Promise<void> {
  term.type('Aunsaved');
  term.key('Escape');
  term.type(':preserve');
  term.key('Enter');
  await term.until((rows) => rows.some((r) => r.includes('preserved')), 'the change in the swap file');
  const pid = term.pid();
  process.kill(pid, 'SIGKILL');
  await waitFor(() => {
    try {
      process.kill(pid, 0);
      return undefined;
    } catch {
      return true;
    }
  }, 10_000, 'the editor to end');
}

/**
 * The pid of the Neovim that serves `socket`: the one whose command line names it (tmux's own
 * names it too), or, where the TUI starts its server as a child (0.10+), that child (`--embed`).
 */
function pidNaming(socket: string): number | undefined {
  const named: { pid: number; embedded: boolean }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      // argv[0] is a path where a wrapper runs another Neovim than the machine's.
      if (basename(argv[0] ?? '') === 'nvim' && argv.includes(socket)) named.push({ pid: Number(entry), embedded: argv.includes('--embed') });
    } catch {
      // Gone meanwhile.
    }
  }
  return (named.find((n) => n.embedded) ?? named[0])?.pid;
}

describe('a Neovim that starts at the swap-file question', () => {
  it('is listed with its pid, cwd and waiting_for at once, refuses calls, and is attached once the user answers', async () => {
    const { home, env } = isolatedHome('vimrelay-swap-');
    const cwd = join(home, 'work');
    writeFiles(cwd);
    const first = startTmux({ command: ['nvim', '--clean', 'b.txt'], env, cwd });
    // Neovim 0.7's own layout, whose name holds no pid.
    const dir = join(home, 'sockets');
    const socket = join(dir, 'nvimQ1w2E3', '0');
    mkdirSync(join(dir, 'nvimQ1w2E3'), { recursive: true, mode: 0o700 });
    const registry = new EditorRegistry();
    let watcher: NvimWatcher | undefined;
    let second: TmuxScreen | undefined;
    try {
      await waitFor(() => (squeezed(first.screen()).includes('theotherfile') ? true : undefined), 10_000, 'the first Neovim');
      await crash(first);
      second = startTmux({ command: ['nvim', '--clean', ...ASKS_SWAP, '--listen', socket, 'b.txt'], env, cwd });
      const screen = second;
      await waitFor(() => (squeezed(screen.screen()).includes('alreadyexists') ? true : undefined), 10_000, 'the swap-file question');
      const pid = await waitFor(() => pidNaming(socket), 10_000, 'its process');
      watcher = new NvimWatcher(registry, { dirs: [dir], sockets: [], tcpEditors: [] });
      await watcher.ready;
      const editor = await waitFor(() => registry.get(`nvim-${pid}`), 10_000, 'the waiting Neovim to be listed');
      expect(editor.info()).toMatchObject({ id: `nvim-${pid}`, pid, cwd, name: 'work', waiting_for: 'confirm', current_file: null });
      expect(errorOf(await call(editor, 'read_buffer'))).toMatchObject({ code: 'EDITOR_BLOCKED', waiting_for: 'confirm' });
      // (E)dit anyway: the agent's Lua goes in, and the info is the editor's own.
      screen.type('e');
      await waitFor(() => (editor.info().waiting_for === null ? true : undefined), 10_000, 'the Neovim to be asked');
      expect(editor.info()).toMatchObject({ pid, cwd, current_file: join(cwd, 'b.txt'), waiting_for: null });
      const read = await call(editor, 'read_buffer');
      expect(read.ok && read.data.lines).toEqual(['the other file']);
    } finally {
      await watcher?.stop();
      await second?.stop();
      await first.stop();
    }
  });
});
