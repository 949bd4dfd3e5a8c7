// open_file and save_buffer, the same cases on a real Neovim and on a real Vim: buffers added and
// loaded without switching, missing files as empty named buffers, paths no Ex command line sees,
// show refusing to abandon unsaved changes; :update semantics, the changedtick guard, the user's
// write autocommands, and failures as EDITOR_ERROR with Vim's message, never a forced write or a
// dialog.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Driver, DRIVERS, waitFor } from '../../../helpers/editors.ts';

describe.each(DRIVERS)('open_file on %s', (_kind, start) => {
  let d: Driver;
  let home: number;
  const current = (): Promise<number> => d.expr<number>('bufnr("%")');
  const bufCount = (): Promise<number> => d.expr<number>('len(getbufinfo())');
  // Names an Ex command line would expand or split: %, #, |, $VAR, a leading +, spaces.
  const odd = 'dir/a b %#|$HOME.txt';
  beforeAll(async () => {
    d = await start({
      files: { 'notes.md': '# Notes ü\nline 2 日本語\n', [odd]: 'odd 🎉\n', '+cmd.txt': 'plus\n', 'other.txt': 'other\n', 'sub/keep': '' },
      open: ['notes.md'],
    });
    home = await current();
  });
  afterAll(() => d.stop());

  it('adds and loads a file without switching to it', async () => {
    const data = await d.ok('open_file', { path: 'other.txt' });
    expect(data).toMatchObject({ path: join(d.cwd, 'other.txt'), created: true, exists_on_disk: true, shown: false, total_lines: 1, modified: false });
    const b = data.buf as number;
    expect(await d.expr(`[bufloaded(${b}), buflisted(${b})]`)).toEqual([1, 1]);
    expect(data.changedtick).toBe(await d.tick(b));
    expect(await d.lines(b)).toEqual(['other']);
    expect(await current()).toBe(home);
    // The same file again, by another spelling of its path: the same buffer.
    expect(await d.ok('open_file', { path: join(d.cwd, 'sub/../other.txt') })).toMatchObject({ buf: b, created: false });
  });

  it('passes paths through as data: no expansion, no command', async () => {
    const data = await d.ok('open_file', { path: odd });
    expect(data).toMatchObject({ path: join(d.cwd, odd), created: true, exists_on_disk: true, total_lines: 1 });
    expect(await d.lines(data.buf as number)).toEqual(['odd 🎉']);
    const plus = await d.ok('open_file', { path: '+cmd.txt' });
    expect(plus).toMatchObject({ path: join(d.cwd, '+cmd.txt'), exists_on_disk: true });
    expect(await d.lines(plus.buf as number)).toEqual(['plus']);
    expect(await current()).toBe(home);
  });

  it('makes a missing file an empty named buffer, and writes nothing', async () => {
    const data = await d.ok('open_file', { path: 'new/later.txt' });
    const path = join(d.cwd, 'new/later.txt');
    expect(data).toMatchObject({ path, created: true, exists_on_disk: false, total_lines: 1, modified: false });
    expect(await d.lines(data.buf as number)).toEqual(['']);
    expect(existsSync(path)).toBe(false);
  });

  it('loads and lists a buffer that exists but is not loaded', async () => {
    const b = await d.expr<number>(`bufadd(${JSON.stringify(join(d.cwd, 'notes.md.bak'))})`);
    expect(await d.expr(`[bufloaded(${b}), buflisted(${b})]`)).toEqual([0, 0]);
    expect(await d.ok('open_file', { path: 'notes.md.bak' })).toMatchObject({ buf: b, created: false, exists_on_disk: false });
    expect(await d.expr(`[bufloaded(${b}), buflisted(${b})]`)).toEqual([1, 1]);
  });

  it('shows the buffer in the current window when asked', async () => {
    const win = await d.expr<number>('win_getid()');
    expect(await d.ok('open_file', { path: 'notes.md', show: false })).toMatchObject({ buf: home, created: false, shown: true });
    const shown = await d.ok('open_file', { path: 'other.txt', show: true });
    expect(shown).toMatchObject({ shown: true });
    expect(await current()).toBe(shown.buf);
    expect(await d.expr('win_getid()')).toBe(win);
    await d.command(`buffer ${home}`);
  });

  it('refuses to show a file when that would abandon (or autowrite) unsaved changes, adding nothing', async () => {
    await d.command('set nohidden autowrite');
    await d.setLine(home, 1, '# Changed');
    const before = await bufCount();
    const outcome = await d.call('open_file', { path: 'never-added.txt', show: true });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'EDITOR_ERROR', hint: expect.stringContaining('without show') } });
    expect(await bufCount()).toBe(before);
    expect(await current()).toBe(home);
    expect(readFileSync(join(d.cwd, 'notes.md'), 'utf8')).toBe('# Notes ü\nline 2 日本語\n');
    // Without show it is fine, and the current window keeps its buffer.
    expect(await d.ok('open_file', { path: 'never-added.txt' })).toMatchObject({ created: true, shown: false });
    await d.command('set hidden noautowrite');
    expect(await d.ok('open_file', { path: 'other.txt', show: true })).toMatchObject({ shown: true });
    expect(await d.expr(`getbufvar(${home}, '&modified')`)).toBe(1);
    await d.command(`buffer ${home}`);
  });

  it('refuses a directory', async () => {
    expect(await d.call('open_file', { path: 'sub' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', message: expect.stringMatching(/directory/) } });
  });
});

// Vim in Normal mode here: only then does it take typed keys, and so open the command-line window.
describe.each(DRIVERS)('open_file while the user is in the command-line window on %s', (_kind, start) => {
  let d: Driver;
  beforeAll(async () => {
    d = await start({ files: { 'notes.md': 'notes\n', 'other.txt': 'other\n' }, open: ['notes.md'], vimNormal: true });
  });
  afterAll(() => d.stop());
  const cmdwin = (type: string): Promise<boolean> =>
    waitFor(async () => ((await d.expr<string>('getcmdwintype()')) === type ? true : undefined), 5_000, `command-line window ${JSON.stringify(type)}`);

  it('refuses show, adding nothing, EDITOR_ERROR with a hint; opens without show', async () => {
    await d.type('q:');
    await cmdwin(':');
    const history = await d.expr<number>('bufnr("%")');
    const before = await d.expr<number>('len(getbufinfo())');
    expect(await d.call('open_file', { path: 'other.txt', show: true })).toMatchObject({
      ok: false,
      error: { code: 'EDITOR_ERROR', message: expect.stringMatching(/command-line window.*Nothing was opened\.$/), hint: expect.stringMatching(/leave the command-line window/) },
    });
    expect(await d.expr('[bufnr("%"), len(getbufinfo())]')).toEqual([history, before]);
    expect(await d.ok('open_file', { path: 'other.txt' })).toMatchObject({ created: true, shown: false });
    expect(await d.expr('bufnr("%")')).toBe(history);
    await d.type(':q\r');
    await cmdwin('');
    expect(await d.ok('open_file', { path: 'other.txt', show: true })).toMatchObject({ shown: true });
  });
});

describe.each(DRIVERS)('save_buffer on %s', (_kind, start) => {
  let d: Driver;
  let main: number;
  const disk = (name: string): string => readFileSync(join(d.cwd, name), 'utf8');
  /** Opens `name` (without showing it) and replaces its text, unsaved; returns the buffer. */
  const edited = async (name: string, text: string): Promise<number> => {
    const { buf } = await d.ok('open_file', { path: name });
    await d.ok('write_buffer', { buffer: name, text, expected_changedtick: await d.tick(buf as number) });
    return buf as number;
  };
  beforeAll(async () => {
    d = await start({ files: { 'main.txt': 'old\n', 'ro.txt': 'read-only\n', 'hooks.txt': 'raw\n', 'bg.txt': 'bg\n' }, open: ['main.txt'] });
    main = await d.bufnr('main.txt');
  });
  afterAll(() => d.stop());

  it('writes a modified buffer to its file', async () => {
    await d.ok('write_buffer', { buffer: main, text: 'new ü\n日本語 🎉', expected_changedtick: await d.tick(main) });
    const data = await d.ok('save_buffer', { expected_changedtick: await d.tick(main) });
    expect(data).toMatchObject({ buf: main, path: join(d.cwd, 'main.txt'), written: true, modified: false });
    expect(data.changedtick).toBe(await d.tick(main));
    expect(disk('main.txt')).toBe('new ü\n日本語 🎉\n');
  });

  it('writes nothing when there is nothing to save', async () => {
    writeFileSync(join(d.cwd, 'main.txt'), 'changed on disk since\n');
    expect(await d.ok('save_buffer', { buffer: 'main.txt' })).toMatchObject({ written: false, modified: false });
    expect(disk('main.txt')).toBe('changed on disk since\n');
  });

  it('writes nothing when the editor could only start the save after its deadline (start_by)', async () => {
    writeFileSync(join(d.cwd, 'late.txt'), 'on disk\n');
    const b = await edited('late.txt', 'late');
    // Passed by less than a second: Vim's deadline checks follow the agent's clock, its own
    // reltime() being no wall clock (from Vim 9.0.1411 on).
    const late = await d.call('save_buffer', { buffer: b }, { signal: new AbortController().signal, deadline: Date.now() - 300 });
    expect(late).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    expect(disk('late.txt')).toBe('on disk\n');
    expect(await d.ok('save_buffer', { buffer: b })).toMatchObject({ written: true });
    expect(disk('late.txt')).toBe('late\n');
  });

  it('refuses a stale expected_changedtick, writing nothing', async () => {
    const b = await edited('bg.txt', 'unsaved');
    const t = await d.tick(b);
    expect(await d.call('save_buffer', { buffer: b, expected_changedtick: t - 1 })).toMatchObject({ ok: false, error: { code: 'STALE_CHANGEDTICK', current_changedtick: t } });
    expect(disk('bg.txt')).toBe('bg\n');
  });

  it('saves a buffer that is not current without switching to it', async () => {
    await edited('bg.txt', 'saved in the background');
    const win = await d.expr<number>('win_getid()');
    const windows = await d.expr<number>('winnr("$")');
    expect(await d.ok('save_buffer', { buffer: 'bg.txt' })).toMatchObject({ written: true, modified: false });
    expect(disk('bg.txt')).toBe('saved in the background\n');
    expect(await d.expr('[bufnr("%"), win_getid(), winnr("$")]')).toEqual([main, win, windows]);
  });

  it("runs the user's write autocommands and reports the state after them (BufWritePre may change the text)", async () => {
    const pre = await edited('hooks.txt', 'raw edit');
    await d.command(`autocmd BufWritePre <buffer=${pre}> call setline(1, 'formatted: ' . getline(1))`);
    const before = await d.tick(pre);
    const data = await d.ok('save_buffer', { buffer: pre, expected_changedtick: before });
    expect(data).toMatchObject({ written: true, modified: false });
    expect(data.changedtick).toBeGreaterThan(before);
    expect(disk('hooks.txt')).toBe('formatted: raw edit\n');
  });

  it("never forces a read-only buffer, and never opens a dialog, even with 'confirm' set", async () => {
    const b = await edited('ro.txt', 'attempt');
    await d.expr(`setbufvar(${b}, '&readonly', 1)`);
    await d.command('set confirm');
    const outcome = await d.call('save_buffer', { buffer: b });
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'EDITOR_ERROR', message: expect.stringContaining('E45'), hint: expect.stringMatching(/read-only.*never forces/) },
    });
    expect(disk('ro.txt')).toBe('read-only\n');
    expect(await d.expr(`[&confirm, getbufvar(${b}, '&modified')]`)).toEqual([1, 1]);
    await d.command('set noconfirm');
  });

  it('reports a missing directory with a hint that names it', async () => {
    const created = await d.ok('write_buffer', { buffer: 'no/such/dir/file.txt', text: 'x' });
    const outcome = await d.call('save_buffer', { buffer: created.buf as number });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'EDITOR_ERROR', message: expect.stringMatching(/E212/), hint: expect.stringContaining(join(d.cwd, 'no/such/dir')) } });
  });

  it('refuses a buffer that has no file', async () => {
    // An unnamed buffer with unsaved text, and a loaded 'nofile' one with a name.
    const unnamed = await d.expr<number>('bufadd("")');
    await d.expr(`setbufvar(${unnamed}, '&buflisted', 1)`);
    await d.expr(`bufload(${unnamed})`);
    await d.expr(`setbufline(${unnamed}, 1, 'x')`);
    expect(await d.expr(`getbufvar(${unnamed}, '&modified')`)).toBe(1);
    expect(await d.call('save_buffer', { buffer: unnamed })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', hint: expect.stringContaining('write_buffer') } });
    const nofile = await d.expr<number>('bufadd("scratch")');
    await d.expr(`setbufvar(${nofile}, '&buftype', 'nofile')`);
    await d.expr(`bufload(${nofile})`);
    expect(await d.call('save_buffer', { buffer: nofile })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('nofile') } });
    expect(await d.call('save_buffer', { buffer: 'unknown.txt' })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
  });
});
