// Diagnostics follow a tool's edit of the current buffer, with no key pressed, with a real
// pyright: find_and_replace puts an undefined name in the buffer, and get_diagnostics comes to
// report it; an undo takes it away again. On Neovim (vim.lsp) and on Vim with ALE, and on the
// real screen (tmux) of a Vim with ALE and of one with vim-lsp, whose message about it appears and
// goes the same way. Vim tells its plugins that text changed (TextChanged) only from its main
// loop, after a key, never after a channel call: the plugin says so itself after a tool's edit.
// (vim-lsp is not run in the Ex-mode Vim (-es) of the drivers: there, Vim 9.0 crashes in vim-lsp's
// handling of its first TextChanged, whoever fires it.)
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlWithin } from '../../../../agent/editors/call.ts';
import type { Editor } from '../../../../agent/editors/editor.ts';
import { validCall, waitFor, type Driver } from '../../../helpers/editors.ts';
import { clientOf, fixtureFiles, lspDriver, serverConfig, SERVERS, type ServerCase } from '../../../helpers/lsp.ts';
import { startTmux, type TmuxScreen } from '../../../helpers/tmux.ts';
import { startVimAgent, VIM_PLUGIN_DIR } from '../../../helpers/vim.ts';

const PYRIGHT = SERVERS.find((s) => s.name === 'pyright') as ServerCase;
const FILE = PYRIGHT.call.file;
const EDIT = { buffer: FILE, old_text: 'total_area([Circle(3)])', new_text: 'no_such_name' };
/** What pyright says of the edit. */
const PROBLEM = '"no_such_name" is not defined';
/** How long the server may take to analyse the edited text (a liveness bound). */
const LINT_MS = 30_000;

type Ok = (tool: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** Whether get_diagnostics reports the edit's problem in FILE. */
async function reported(ok: Ok): Promise<boolean> {
  const data = await ok('get_diagnostics', { buffer: FILE });
  return (data.diagnostics as { message: string }[]).some((x) => x.message.includes(PROBLEM));
}

describe.each(['Neovim', 'Vim'] as const)('diagnostics after a tool edit on %s', (editor) => {
  let d: Driver;
  beforeAll(async () => {
    d = await lspDriver(clientOf(editor), PYRIGHT);
  }, 90_000);
  afterAll(() => d?.stop());

  it('reports the problem an edit of the current buffer makes, and its going away after an undo', async () => {
    const ok: Ok = (tool, args) => d.ok(tool, args);
    expect(await reported(ok)).toBe(false);
    const edit = await ok('find_and_replace', EDIT);
    await waitFor(async () => ((await reported(ok)) ? true : undefined), LINT_MS, 'the diagnostic of the edit');
    await ok('undo', { buffer: FILE, expected_changedtick: edit.changedtick });
    await waitFor(async () => ((await reported(ok)) ? undefined : true), LINT_MS, 'the diagnostic of the edit to go');
  });
});

/** The Vim clients on the screen: their user config (test/fixtures/lsp), and when the file is ready. */
const SCREEN_CLIENTS = [
  { client: 'ALE', config: 'vimrc.vim', ready: 'get(b:, "ale_linted", 0) > 0' },
  {
    client: 'vim-lsp',
    config: 'vim-lsp.vim',
    ready: 'has_key(lsp#internal#diagnostics#state#_get_all_diagnostics_grouped_by_uri_and_server(), lsp#utils#get_buffer_uri(bufnr("%")))',
  },
];

/** A Vim in tmux (rows x 100) on a copy of PYRIGHT's fixture with FILE open, its user config `config`, FILE ready by `ready`. */
interface ScreenVim {
  tmux: TmuxScreen;
  ok: Ok;
  stop(): Promise<void>;
}

async function startScreenVim(config: string, ready: string, rows: number): Promise<ScreenVim> {
  const agent = await startVimAgent();
  const cwd = join(agent.home, 'project');
  for (const [file, text] of Object.entries(fixtureFiles(PYRIGHT.fixture))) {
    mkdirSync(dirname(join(cwd, file)), { recursive: true });
    writeFileSync(join(cwd, file), text);
  }
  const env = { ...agent.env, VIMRELAY_TEST_LSP: serverConfig([PYRIGHT]) };
  const vimrc = join(import.meta.dirname, '../../../fixtures/lsp', config);
  const tmux = startTmux({
    command: ['vim', '-N', '-u', 'NONE', '-i', 'NONE', '-n', '--cmd', `source ${vimrc}`, '--cmd', `set rtp^=${VIM_PLUGIN_DIR}`, '--cmd', 'runtime plugin/vimrelay.vim', '-c', 'VimRelayConnect screen', FILE],
    cwd,
    env,
    cols: 100,
    rows,
  });
  const stop = async (): Promise<void> => {
    await tmux.stop();
    await agent.stop();
  };
  try {
    const editor: Editor = await waitFor(() => agent.registry.list()[0], 10_000, 'Vim to connect');
    const ok: Ok = async (tool, args) => {
      const { record, args: parsed } = validCall(tool, args);
      const outcome = await editor.run(record, parsed, controlWithin(10_000));
      if (!outcome.ok) throw new Error(`${tool} failed: ${JSON.stringify(outcome.error)}`);
      return outcome.data;
    };
    // Ready once the file has had its first diagnostics (test/fixtures/lsp says how each client keeps them).
    await waitFor(async () => ((await evaluate(ok, ready)) === '1' ? true : undefined), 60_000, 'pyright to analyse the file');
    return { tmux, ok, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** What `:echo expr` prints in the Vim, through run_command. */
async function evaluate(ok: Ok, expr: string): Promise<string | undefined> {
  const results = (await ok('run_command', { commands: `echo ${expr}` })).results as { output: string }[];
  return results[0]?.output;
}

const shown = (rows: string[]): boolean => rows.some((row) => row.includes(PROBLEM));

describe.each(SCREEN_CLIENTS)('$client on the screen of a Vim in tmux, no key pressed after the edit', ({ config, ready }) => {
  let vim: ScreenVim;
  beforeAll(async () => {
    vim = await startScreenVim(config, ready, 12);
  }, 90_000);
  afterAll(() => vim?.stop());

  it('shows the message about the edit and reports it, then neither after an undo', async () => {
    const { ok, tmux } = vim;
    expect(shown(tmux.screen())).toBe(false);
    const edit = await ok('find_and_replace', EDIT);
    await tmux.until(shown, 'the message about the edit', LINT_MS);
    expect(await reported(ok)).toBe(true);
    await ok('undo', { buffer: FILE, expected_changedtick: edit.changedtick });
    await waitFor(async () => ((await reported(ok)) ? undefined : true), LINT_MS, 'the diagnostic of the edit to go');
    await tmux.until((rows) => !shown(rows), 'the message gone', LINT_MS);
  });
});

/** The user's place in Vim: current buffer, window, cursor, window layout and tab page. */
const PLACE = 'json_encode([bufnr("%"), win_getid(), getcurpos(), winlayout(), tabpagenr()])';
const OTHER = 'shapes/geometry.py';

// A tool's edit of a buffer that is not the current one: hidden, then shown in another window.
// Its linter or language server hears of it, with no key pressed and nothing of the user's moved;
// a TextChanged handler of the user's (g:heard) runs only in a window that shows it, with it current.
describe.each(SCREEN_CLIENTS)('$client told of an edit of a buffer that is not current, no key pressed', ({ config, ready }) => {
  let vim: ScreenVim;
  beforeAll(async () => {
    vim = await startScreenVim(config, ready, 24);
    await vim.ok('run_command', {
      commands: ['set hidden', `edit ${OTHER}`, 'call cursor(6, 9)', 'let g:heard = []', 'autocmd TextChanged * call add(g:heard, [bufnr("%"), win_getid()])'],
    });
  }, 90_000);
  afterAll(() => vim?.stop());

  /**
   * Makes and undoes EDIT, each followed by get_diagnostics of FILE; `then` checks the screen after
   * each. Returns the [buffer, window] in which the user's TextChanged handler ran meanwhile.
   */
  async function editAndUndo(then: (rows: string[], edited: boolean) => boolean): Promise<string | undefined> {
    const { ok, tmux } = vim;
    await ok('run_command', { commands: 'let g:heard = []' });
    const place = await evaluate(ok, PLACE);
    expect(await reported(ok)).toBe(false);
    const edit = await ok('find_and_replace', EDIT);
    await waitFor(async () => ((await reported(ok)) ? true : undefined), LINT_MS, 'the diagnostic of the edit');
    await tmux.until((rows) => then(rows, true), 'the screen after the edit', LINT_MS);
    expect(await evaluate(ok, PLACE)).toBe(place);
    await ok('undo', { buffer: FILE, expected_changedtick: edit.changedtick });
    await waitFor(async () => ((await reported(ok)) ? undefined : true), LINT_MS, 'the diagnostic of the edit to go');
    await tmux.until((rows) => then(rows, false), 'the screen after the undo', LINT_MS);
    expect(await evaluate(ok, PLACE)).toBe(place);
    return evaluate(ok, 'json_encode(uniq(sort(g:heard)))');
  }

  it('a hidden buffer: reports the problem the edit makes, and its going away after an undo', async () => {
    expect(await evaluate(vim.ok, `bufwinid("${FILE}")`)).toBe('-1');
    const before = vim.tmux.screen().slice(0, -1);
    expect(await editAndUndo((rows) => JSON.stringify(rows.slice(0, -1)) === JSON.stringify(before))).toBe('[]');
  });

  it('a buffer in another window: shows the message there and reports it, then neither after an undo', async () => {
    await vim.ok('run_command', { commands: [`topleft sbuffer ${FILE}`, 'wincmd p'] });
    await vim.tmux.until((rows) => rows.some((row) => row.includes('circles[0].area()')), 'both windows');
    const there = await evaluate(vim.ok, `json_encode([[bufnr("${FILE}"), bufwinid("${FILE}")]])`);
    expect(await editAndUndo((rows, edited) => shown(rows) === edited)).toBe(there);
  });
});
