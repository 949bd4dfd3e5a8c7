// What the user sees, on the real screen: Vim (plugin/vim) and Neovim in a terminal under tmux,
// each attached to the agent's adapter as a user runs it. After a call through the adapter, and
// with no key pressed, the screen (tmux capture-pane) shows what the call did: an edit, a cursor
// moved and scrolled into view, a highlight, virtual text, keys sent (<C-\><C-N> among them), an
// undo, and a permission prompt that appears and goes again at its deadline. Vim redraws after a
// channel call only when told to (vimrelay#call's `redraw`, ask.vim); Neovim redraws by itself,
// the contrast case. Also: a redraw leaves a command line the user is typing as it was.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlWithin } from '../../../agent/editors/call.ts';
import type { Editor } from '../../../agent/editors/editor.ts';
import { NvimEditor } from '../../../agent/editors/nvim/editor.ts';
import type { AskAnswer } from '../../../agent/policy/types.ts';
import type { ToolOutcome } from '../../../protocol/index.ts';
import { validCall } from '../../helpers/editors.ts';
import { isolatedHome } from '../../helpers/home.ts';
import { startTmux, type TmuxScreen } from '../../helpers/tmux.ts';
import { startVimAgent, VIM_PLUGIN_DIR, type VimAgentFixture } from '../../helpers/vim.ts';
import { waitFor } from '../../helpers/wait.ts';

const LINES = Array.from({ length: 80 }, (_, i) => `line ${i + 1}`);

/** Runs a catalog tool through the adapter, as the dispatcher does. */
function run(editor: Editor, tool: string, args: Record<string, unknown>): Promise<ToolOutcome> {
  const { record, args: parsed } = validCall(tool, args);
  return editor.run(record, parsed, controlWithin(10_000));
}

async function ok(editor: Editor, tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const outcome = await run(editor, tool, args);
  if (!outcome.ok) throw new Error(`${tool} failed: ${JSON.stringify(outcome.error)}`);
  return outcome.data;
}

/** The screen row showing `text` exactly (the line's text, then nothing), or -1. */
const rowOf = (rows: string[], text: string): number => rows.findIndex((r) => r === text);

describe('Vim on the real screen, no key pressed after the call', () => {
  let agent: VimAgentFixture;
  let tmux: TmuxScreen;
  let editor: Editor;
  beforeAll(async () => {
    agent = await startVimAgent();
    const cwd = join(agent.home, 'screen');
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'notes.txt'), LINES.join('\n') + '\n');
    const vim = `vim -N -u NONE -i NONE -n --cmd 'set rtp^=${VIM_PLUGIN_DIR}' --cmd 'runtime plugin/vimrelay.vim' -c 'VimRelayConnect screen' notes.txt`;
    tmux = startTmux({ command: vim, cwd, env: agent.env });
    editor = await waitFor(() => agent.registry.list()[0], 10_000, 'Vim to connect');
    await tmux.until((rows) => rows[0] === 'line 1', 'Vim to show the file');
  });
  afterAll(async () => {
    await tmux?.stop();
    await agent?.stop();
  });

  it('shows an edit at once', async () => {
    await ok(editor, 'find_and_replace', { old_text: 'line 2\n', new_text: 'line two, edited by the assistant\n' });
    const rows = await tmux.until((r) => r[1] === 'line two, edited by the assistant', 'the edit on screen');
    expect(rows[0]).toBe('line 1');
  });

  it('moves the cursor and scrolls it into view', async () => {
    await ok(editor, 'set_cursor', { line: 70, col: 3 });
    await tmux.until((r) => rowOf(r, 'line 70') >= 0, 'line 70 scrolled into view');
    const cursor = await waitFor(() => {
      const rows = tmux.screen();
      const at = tmux.cursor();
      return at.row === rowOf(rows, 'line 70') && at.col === 2 ? at : undefined;
    }, 10_000, 'the cursor on line 70, column 3').catch((err: unknown) => {
      throw new Error(`${String(err)}: at ${JSON.stringify(tmux.cursor())}, line 70 on row ${rowOf(tmux.screen(), 'line 70')}`);
    });
    expect(cursor.col).toBe(2);
  });

  it('shows virtual text and a highlight', async () => {
    await ok(editor, 'add_virtual_text', { line: 70, text: 'note from the assistant', position: 'eol', color: 'warning' });
    await tmux.until((r) => r.some((row) => row.startsWith('line 70') && row.includes('note from the assistant')), 'the virtual text on screen');
    const before = tmux.screenWithAttributes().find((row) => row.includes('line 69'));
    await ok(editor, 'highlight_range', { start: { line: 69, col: 1 }, end: { line: 69, col: 8 }, color: 'error' });
    // The highlighted line is drawn with other attributes (escape sequences) than before.
    await tmux.until(() => tmux.screenWithAttributes().find((row) => row.includes('line 69')) !== before, 'the highlight on screen');
    await ok(editor, 'clear_decorations', {});
    await tmux.until((r) => !r.some((row) => row.includes('note from the assistant')), 'the decorations gone');
  });

  it('shows what keys did, and an undo', async () => {
    await ok(editor, 'send_keys', { keys: 'ggdd' });
    await tmux.until((r) => r[0] === 'line two, edited by the assistant', 'the deleted line gone');
    await ok(editor, 'undo', {});
    await tmux.until((r) => r[0] === 'line 1', 'the line back after undo');
  });

  it('takes every key notation Neovim does: <C-\\><C-N> leaves Insert mode', async () => {
    const data = await ok(editor, 'send_keys', { keys: 'ggi<C-\\><C-N>x' });
    expect(data).toMatchObject({ mode: 'n' });
    await tmux.until((r) => r[0] === 'ine 1', 'the first character deleted in Normal mode');
    await ok(editor, 'undo', {});
    await tmux.until((r) => r[0] === 'line 1', 'the line back after undo');
  });

  it('shows a permission prompt, and takes it down at its deadline', async () => {
    const deadline = new AbortController();
    const answer: Promise<AskAnswer> = editor.ask(
      { client: 'pat:screen-test', tool: 'save_buffer', klass: 'save', editor: 'screen', chosenName: null, preview: 'save notes.txt', previewChars: 14, paths: [join(agent.home, 'screen', 'notes.txt')] },
      deadline.signal,
    );
    await tmux.until((r) => r.some((row) => row.includes('pat:screen-test asks to run save_buffer')), 'the prompt on screen');
    deadline.abort();
    expect(await answer).toEqual({ kind: 'timeout' });
    await tmux.until((r) => !r.some((row) => row.includes('asks to run')), 'the prompt gone');
  });

  it('keeps a command line the user is typing when it redraws', async () => {
    tmux.type(':echo "half typed');
    await tmux.until((r) => r.at(-1) === ':echo "half typed', 'the command line being typed');
    await ok(editor, 'find_and_replace', { old_text: 'line 3\n', new_text: 'line three, edited while typing\n' });
    const rows = await tmux.until((r) => r.some((row) => row === 'line three, edited while typing'), 'the edit on screen');
    expect(rows.at(-1)).toBe(':echo "half typed');
    tmux.key('Escape');
  });
});

describe('Neovim on the real screen (it redraws by itself)', () => {
  let tmux: TmuxScreen;
  let editor: NvimEditor;
  beforeAll(async () => {
    const { home, env } = isolatedHome('vimrelay-screen-');
    const cwd = join(home, 'work');
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'notes.txt'), LINES.join('\n') + '\n');
    const socket = join(home, 'editor.sock');
    tmux = startTmux({ command: `nvim --clean -n --listen ${socket} notes.txt`, cwd, env });
    editor = await waitFor(() => NvimEditor.attach(socket, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined), 10_000, 'Neovim to listen');
    await tmux.until((rows) => rows[0] === 'line 1', 'Neovim to show the file');
  });
  afterAll(async () => {
    await editor?.close();
    await tmux?.stop();
  });

  it('shows an edit at once', async () => {
    await ok(editor, 'find_and_replace', { old_text: 'line 2\n', new_text: 'line two, edited by the assistant\n' });
    await tmux.until((r) => r[1] === 'line two, edited by the assistant', 'the edit on screen');
  });
});
