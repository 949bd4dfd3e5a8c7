// Editor.paths, the same cases on a real Neovim and on a real Vim: which absolute files a call
// addresses (each tool's record says how: agent/editors/tools/tool.ts `Addressing`), for the permission policy's path rules and
// never_read — the buffer named by number or relative path, the current buffer by default, a path
// that names no buffer yet (a number that names none: BUFFER_NOT_FOUND), every loaded buffer for grep_buffers, none for state tools and unnamed
// buffers, and a symlink counted with its real path too; and every buffer with diagnostics, for
// never_read.
import { existsSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NoSuchBuffer } from '../../../agent/editors/paths.ts';
import { clearDiagnostics, setDiagnostics, VIM_ALE } from '../../helpers/diagnostics-source.ts';
import { type Driver, DRIVERS, validCall } from '../../helpers/editors.ts';

describe.each(DRIVERS)('Editor.paths on %s', (_kind, start) => {
  let d: Driver;
  /** The file's absolute name and, when a symlink makes it differ, its real path. */
  const file = (name: string): string[] => {
    const p = join(d.cwd, name);
    const real = existsSync(p) ? realpathSync(p) : p;
    return real === p ? [p] : [p, real];
  };
  const paths = async (tool: string, args: Record<string, unknown> = {}): Promise<string[]> => {
    const call = validCall(tool, args);
    return d.editor.paths(call.record.addresses(call.args), call.args, AbortSignal.timeout(30_000));
  };

  beforeAll(async () => {
    d = await start({ files: { 'a.txt': 'a\n', 'b.txt': 'b\n', 'target.txt': 't\n' }, open: ['a.txt', 'b.txt'], vimCmds: VIM_ALE });
    symlinkSync(join(d.cwd, 'target.txt'), join(d.cwd, 'link.txt'));
    await d.command('badd link.txt');
    await d.expr(`bufload(${await d.bufnr('link.txt')})`);
    await d.expr(`bufload(${await d.bufnr('b.txt')})`);
    await d.cursor('a.txt', 1, 0);
  });
  afterAll(() => d.stop());

  it('buffer tools: the current buffer by default, else the buffer named by number or relative path', async () => {
    const required: Record<string, Record<string, unknown>> = {
      read_buffer: {},
      find_and_replace: { old_text: 'x', new_text: 'y' },
      apply_diff: { diff: '@@ -1 +1 @@\n-a\n+b\n', expected_changedtick: 0 },
      substitute: { pattern: 'a', replacement: 'b' },
      undo: {},
      redo: {},
      save_buffer: {},
      highlight_range: { start: { line: 1, col: 1 }, end: { line: 1, col: 2 } },
      add_virtual_text: { line: 1, text: 'x' },
      clear_decorations: {},
    };
    for (const [tool, args] of Object.entries(required)) expect(await paths(tool, args), tool).toEqual(file('a.txt'));
    expect(await paths('read_buffer', { buffer: await d.bufnr('b.txt') })).toEqual(file('b.txt'));
    expect(await paths('read_buffer', { buffer: 'b.txt' })).toEqual(file('b.txt'));
    expect(await paths('read_buffer', { buffer: join(d.cwd, 'sub', '..', 'b.txt') })).toEqual(file('b.txt'));
  });

  it('a path that names no buffer counts as itself; a number that names none is BUFFER_NOT_FOUND, as the tool answers', async () => {
    expect(await paths('write_buffer', { buffer: 'new/file.txt', text: 'x' })).toEqual([join(d.cwd, 'new/file.txt')]);
    const refused = await paths('read_buffer', { buffer: 9999 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(NoSuchBuffer);
    expect((refused as NoSuchBuffer).outcome).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND', message: 'There is no buffer number 9999.' } });
    expect(await paths('open_file', { path: 'target.txt' })).toEqual(file('target.txt'));
    expect(await paths('open_file', { path: join(d.cwd, 'nothing-here.txt') })).toEqual([join(d.cwd, 'nothing-here.txt')]);
  });

  it('a symlink counts with its real path too', async () => {
    const link = join(d.cwd, 'link.txt');
    expect(await paths('read_buffer', { buffer: 'link.txt' })).toEqual([link, realpathSync(join(d.cwd, 'target.txt'))]);
    expect(await paths('open_file', { path: 'link.txt' })).toEqual([link, realpathSync(join(d.cwd, 'target.txt'))]);
  });

  it('grep_buffers: the listed buffers, or every loaded buffer', async () => {
    expect(await paths('grep_buffers', { pattern: 'x', buffers: ['b.txt'] })).toEqual(file('b.txt'));
    const all = await paths('grep_buffers', { pattern: 'x' });
    expect([...all].sort()).toEqual([...new Set([...file('a.txt'), ...file('b.txt'), join(d.cwd, 'link.txt'), realpathSync(join(d.cwd, 'target.txt'))])].sort());
  });

  it('get_diagnostics: its buffer or none; state tools and clear_decorations over all buffers: none', async () => {
    expect(await paths('get_diagnostics')).toEqual([]);
    expect(await paths('get_diagnostics', { buffer: 'b.txt' })).toEqual(file('b.txt'));
    expect(await paths('get_state')).toEqual([]);
    expect(await paths('get_state_brief')).toEqual([]);
    expect(await paths('clear_decorations', { all_buffers: true })).toEqual([]);
  });

  it("never_read's look before a get_diagnostics over every buffer: each buffer with diagnostics, loaded or not", async () => {
    const signal = AbortSignal.timeout(30_000);
    expect(await d.editor.paths('diagnosed', {}, signal)).toEqual([]);
    await d.command('badd c.txt');
    const bufs = [await d.bufnr('b.txt'), await d.bufnr('link.txt'), await d.bufnr('c.txt')];
    for (const buf of bufs) await setDiagnostics(d, buf, 'lint', [{ lnum: 1, col: 0, severity: 2, message: 'm' }]);
    try {
      const got = await d.editor.paths('diagnosed', {}, signal);
      expect([...got].sort()).toEqual([...file('b.txt'), join(d.cwd, 'link.txt'), realpathSync(join(d.cwd, 'target.txt')), join(d.cwd, 'c.txt')].sort());
    } finally {
      await clearDiagnostics(d, bufs, ['lint']);
    }
  });

  it('exec and terminal tools: the current buffer', async () => {
    await d.cursor('b.txt', 1, 0);
    expect(await paths('run_command', { commands: 'echo 1' })).toEqual(file('b.txt'));
    expect(await paths('send_keys', { keys: 'j' })).toEqual(file('b.txt'));
    expect(await paths('send_to_terminal', { text: 'ls' })).toEqual(file('b.txt'));
    await d.cursor('a.txt', 1, 0);
  });

  it('set_cursor: its buffer, else the buffer its window shows', async () => {
    expect(await paths('set_cursor', { line: 1 })).toEqual(file('a.txt'));
    expect(await paths('set_cursor', { line: 1, buffer: 'b.txt' })).toEqual(file('b.txt'));
    const win = await d.expr<number>('win_getid()');
    expect(await paths('set_cursor', { line: 1, window: win })).toEqual(file('a.txt'));
  });

  it('an unnamed buffer contributes nothing', async () => {
    await d.command('enew');
    expect(await paths('read_buffer')).toEqual([]);
    expect(await paths('run_command', { commands: 'echo 1' })).toEqual([]);
    await d.cursor('a.txt', 1, 0);
  });
});
