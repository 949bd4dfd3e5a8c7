// Loading a buffer for a tool runs the user's filetype plugins, as opening it themselves would:
// on a real Neovim and a real Vim, files whose ftplugins the editor ships (Neovim 0.10+ starts
// tree-sitter in the Lua, help and Markdown ones) load and read through open_file and read_buffer;
// and an ftplugin that fails does not fail the tool once the buffer loaded (open_file, with and
// without show, and read_buffer of a listed buffer not loaded yet, which loads it as lsp_rename
// loads the files it edits), the text read being the file's.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVERS, type Driver } from '../../../helpers/editors.ts';
import { tempDir } from '../../../helpers/temp.ts';

/** A runtime directory with a filetype `broken` whose ftplugin fails, as a user's may. */
function brokenRuntime(): string {
  const dir = tempDir('vimrelay-rtp-');
  mkdirSync(join(dir, 'ftplugin'));
  mkdirSync(join(dir, 'ftdetect'));
  writeFileSync(join(dir, 'ftdetect', 'broken.vim'), 'autocmd BufNewFile,BufRead *.broken setfiletype broken\n');
  writeFileSync(join(dir, 'ftplugin', 'broken.vim'), "let b:broken_ran = 1\nthrow 'a broken ftplugin'\n");
  return dir;
}

describe.each(DRIVERS)('loading buffers for tools with the user\'s ftplugins on %s', (_kind, start) => {
  let d: Driver;
  const files = {
    'notes.md': '# Notes ü\n\nSome *text*.\n',
    'init.lua': 'local x = 1\nreturn x\n',
    'a.broken': 'first line\nsecond line\n',
    'b.broken': 'shown\n',
    'c.broken': 'listed, not loaded\n',
  };
  beforeAll(async () => {
    const rtp = brokenRuntime();
    // The runtime goes first on 'runtimepath' before filetype detection is turned on, as a plugin
    // manager puts a user's plugins there.
    d = await start({
      files,
      open: [],
      vimCmds: [`set rtp^=${rtp}`, 'filetype plugin on'],
      args: ['--cmd', `set rtp^=${rtp}`],
    });
  });
  afterAll(() => d.stop());

  it("opens and reads files whose ftplugins the editor ships (tree-sitter ones on Neovim 0.10+)", async () => {
    for (const name of ['notes.md', 'init.lua']) {
      const opened = await d.ok('open_file', { path: name });
      expect(opened).toMatchObject({ path: join(d.cwd, name), created: true });
      const read = await d.ok('read_buffer', { buffer: name });
      expect(read.lines).toEqual(files[name as 'notes.md'].split('\n').slice(0, -1));
    }
    expect(await d.ok('open_file', { path: 'notes.md', show: true })).toMatchObject({ shown: true });
  });

  it('loads a buffer whose ftplugin fails, and answers with it', async () => {
    const opened = await d.ok('open_file', { path: 'a.broken' });
    expect(opened).toMatchObject({ created: true, total_lines: 2, modified: false });
    const b = opened.buf as number;
    // The ftplugin ran (and failed) as it would for the user.
    expect(await d.expr(`[getbufvar(${b}, '&filetype'), getbufvar(${b}, 'broken_ran', 0)]`)).toEqual(['broken', 1]);
    expect((await d.ok('read_buffer', { buffer: b })).lines).toEqual(['first line', 'second line']);
    expect(await d.ok('open_file', { path: 'b.broken', show: true })).toMatchObject({ shown: true, total_lines: 1 });
  });

  it('reads a listed buffer not loaded yet whose ftplugin fails, loading it', async () => {
    const b = await d.expr<number>(`bufadd(${JSON.stringify(join(d.cwd, 'c.broken'))})`);
    await d.expr(`setbufvar(${b}, '&buflisted', 1)`);
    expect(await d.expr(`bufloaded(${b})`)).toBe(0);
    expect((await d.ok('read_buffer', { buffer: b })).lines).toEqual(['listed, not loaded']);
    expect(await d.expr(`[bufloaded(${b}), getbufvar(${b}, 'broken_ran', 0)]`)).toEqual([1, 1]);
  });
});
