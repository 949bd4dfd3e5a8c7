// `:help vimrelay` works right after the README's install (the plugin linked into a package
// directory), with no `:helptags` run: plugin/vim/doc/tags is part of the plugin, and this holds
// it equal to what `:helptags` makes of the help file as it is now.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { VIM_PLUGIN_DIR } from '../helpers/vim.ts';
import { tempDir } from '../helpers/temp.ts';

/** Runs Ex commands in a Vim with no user configuration; returns what it wrote to `out`. */
function vimEx(commands: string[], out: string): string {
  const r = spawnSync('vim', ['-N', '-u', 'NONE', '-i', 'NONE', '-n', '-es', ...commands.flatMap((c) => ['-c', c]), '-c', 'qa!'], { encoding: 'utf8', timeout: 20_000 });
  expect(r.status).toBe(0);
  return readFileSync(out, 'utf8');
}

it('opens the help after installing the plugin as a package, without :helptags', () => {
  const pack = tempDir('vimrelay-pack-');
  mkdirSync(join(pack, 'pack', 'vimrelay', 'start'), { recursive: true });
  symlinkSync(VIM_PLUGIN_DIR, join(pack, 'pack', 'vimrelay', 'start', 'vimrelay'));
  const out = join(pack, 'out.txt');
  const shown = vimEx([`set packpath=${pack}`, 'packloadall', 'help vimrelay', `call writefile([&filetype, expand('%:t'), getline('.')], '${out}')`], out);
  const [filetype, file, line] = shown.split('\n');
  expect(filetype).toBe('help');
  expect(file).toBe('vimrelay.txt');
  expect(line).toContain('*vimrelay*');
});

it('ships the tags :helptags makes of the help file as it is', () => {
  const copy = tempDir('vimrelay-doc-');
  cpSync(join(VIM_PLUGIN_DIR, 'doc', 'vimrelay.txt'), join(copy, 'vimrelay.txt'));
  const made = vimEx([`helptags ${copy}`], join(copy, 'tags'));
  expect(readFileSync(join(VIM_PLUGIN_DIR, 'doc', 'tags'), 'utf8')).toBe(made);
});
