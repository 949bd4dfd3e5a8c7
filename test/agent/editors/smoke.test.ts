// Every editor tool once, on a real Neovim (vim.lsp) and a real Vim in Normal mode (ALE), each
// with a real pylsp on a Python project, a text file and a terminal; the list is held whole (a
// tool added to the catalog must be added here). Then what the user sees of it: nothing vimrelay
// did leaves a message in the editor's :messages, and on a Neovim that keeps a record of the
// deprecated functions called (`:checkhealth vim.deprecated`, 0.11+; before, a deprecation is a
// message), none of them was called from vimrelay's Lua. The quick pass of CI on the editors
// between the oldest and the newest.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EDITOR_TOOLS } from '../../../agent/editors/tools/index.ts';
import { type Driver, waitFor } from '../../helpers/editors.ts';
import { clientOf, lspDriver, SERVERS, type ServerCase } from '../../helpers/lsp.ts';

const PYLSP = SERVERS.find((s) => s.name === 'pylsp') as ServerCase;
const at = (place: { file: string; line: number; col: number }) => ({ buffer: place.file, line: place.line, col: place.col });

describe.each(['Neovim', 'Vim'] as const)('every tool once on %s', (editor) => {
  let d: Driver;
  let before = '';
  /** The editor's message history (:messages). */
  const messages = (): Promise<string> => d.expr<string>('execute("messages")');
  const tick = async (name: string): Promise<number> => d.tick(await d.bufnr(name));

  beforeAll(async () => {
    d = await lspDriver(clientOf(editor), PYLSP, { files: { 'notes.txt': 'alpha\nbeta\ngamma\n' }, vimNormal: true });
    before = await messages();
  }, 90_000);
  afterAll(() => d?.stop());

  /** Each tool's call, in the order they run: each must succeed. */
  const calls: Record<string, () => Promise<unknown>> = {
    open_file: () => d.ok('open_file', { path: 'notes.txt', show: true }),
    get_state_brief: () => d.ok('get_state_brief'),
    get_state: () => d.ok('get_state'),
    read_buffer: () => d.ok('read_buffer', { buffer: PYLSP.call.file }),
    grep_buffers: () => d.ok('grep_buffers', { pattern: PYLSP.callName }),
    get_diagnostics: () => d.ok('get_diagnostics', {}),
    find_and_replace: async () => d.ok('find_and_replace', { buffer: 'notes.txt', old_text: 'alpha', new_text: 'ALPHA', expected_changedtick: await tick('notes.txt') }),
    apply_diff: async () => d.ok('apply_diff', { buffer: 'notes.txt', expected_changedtick: await tick('notes.txt'), diff: '@@ -2 +2 @@\n-beta\n+BETA\n' }),
    write_buffer: () => d.ok('write_buffer', { buffer: 'written.txt', text: 'new file ü\n' }),
    substitute: () => d.ok('substitute', { buffer: 'notes.txt', pattern: 'gamma', replacement: 'GAMMA' }),
    undo: () => d.ok('undo', { buffer: 'notes.txt' }),
    redo: () => d.ok('redo', { buffer: 'notes.txt' }),
    set_cursor: () => d.ok('set_cursor', { buffer: PYLSP.call.file, line: PYLSP.call.line, col: PYLSP.call.col }),
    highlight_range: () => d.ok('highlight_range', { buffer: 'notes.txt', start: { line: 1, col: 1 }, end: { line: 1, col: 3 }, color: 'warning' }),
    add_virtual_text: () => d.ok('add_virtual_text', { buffer: 'notes.txt', line: 2, text: 'a note 🎉', position: 'below' }),
    clear_decorations: () => d.ok('clear_decorations', { all_buffers: true }),
    save_buffer: () => d.ok('save_buffer', { buffer: 'notes.txt' }),
    run_command: () => d.ok('run_command', { commands: ['let g:smoke = 1'] }),
    send_keys: () => d.ok('send_keys', { keys: 'gg' }),
    send_to_terminal: () => d.ok('send_to_terminal', { text: 'hello', submit: true }),
    lsp_definition: () => d.ok('lsp_definition', at(PYLSP.member)),
    lsp_references: () => d.ok('lsp_references', at(PYLSP.call)),
    lsp_hover: () => d.ok('lsp_hover', at(PYLSP.call)),
    lsp_symbols: () => d.ok('lsp_symbols', { buffer: PYLSP.call.file }),
    lsp_rename: () => d.ok('lsp_rename', { ...at(PYLSP.rename), new_name: PYLSP.renameTo }),
    // pylsp (with no plugins) offers no code action, formats nothing, and has no hierarchies.
    lsp_code_actions: () => d.ok('lsp_code_actions', at(PYLSP.call)),
    lsp_format: () => d.ok('lsp_format', { buffer: PYLSP.call.file }),
    lsp_calls: async () => expect(await d.call('lsp_calls', at(PYLSP.call))).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', reason: 'method' } }),
    lsp_types: async () => expect(await d.call('lsp_types', at(PYLSP.member))).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', reason: 'method' } }),
  };

  it('has a call for every editor tool of the catalog', () => {
    expect(Object.keys(calls).sort()).toEqual(EDITOR_TOOLS.map((t) => t.spec.name).sort());
  });

  it('runs every tool, leaving no message in the editor', async () => {
    // A terminal for send_to_terminal, opened as a user would, and back to the file.
    if (d.kind === 'nvim') await d.command('split');
    await d.command('terminal cat');
    await d.command('wincmd p');
    await waitFor(async () => ((await d.expr<string>('mode(1)')) === 'n' ? true : undefined), 5_000, 'Normal mode');
    for (const [tool, call] of Object.entries(calls)) await expect(call(), tool).resolves.toBeDefined();
    expect((await messages()).slice(before.length).trim()).toBe('');
  });

  it('calls no deprecated function of the editor', async (ctx) => {
    if (d.kind !== 'nvim') ctx.skip('Vim keeps no record of deprecated functions');
    if (!(await d.expr<boolean>(`luaeval('pcall(require, "vim.deprecated.health")')`))) ctx.skip('this Neovim keeps no record (before 0.11, a deprecation is a message)');
    await d.command('checkhealth vim.deprecated');
    const report = (await d.expr<string[]>('getline(1, "$")')).join('\n');
    await d.command('bwipeout!');
    expect(report).toContain('vim.deprecated');
    expect(report).not.toMatch(/vimrelay/);
  });
});
