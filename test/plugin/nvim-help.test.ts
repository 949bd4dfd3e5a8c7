// `:help vimrelay` in Neovim (it was E149: the help file was Vim's alone) right after the README's
// install of plugin/nvim as a native package, with no `:helptags` run: plugin/nvim/doc/tags is
// part of the plugin, and this holds it equal to what Neovim's `:helptags` makes of the help file
// as it is now. The help names every command the plugin and the agent give Neovim.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.ts';

const PLUGIN = join(import.meta.dirname, '..', '..', 'plugin', 'nvim');

/** Runs Ex commands in a Neovim with no user configuration; returns what it wrote to `out`. */
function nvimEx(commands: string[], out: string): string {
  const r = spawnSync('nvim', ['--clean', '--headless', '-n', ...commands.flatMap((c) => ['-c', c]), '-c', 'qa!'], { encoding: 'utf8', timeout: 20_000 });
  expect(r.status, r.stderr).toBe(0);
  return readFileSync(out, 'utf8');
}

it('opens the help after installing the plugin as a package, without :helptags', () => {
  const pack = tempDir('vimrelay-nvim-pack-');
  mkdirSync(join(pack, 'pack', 'vimrelay', 'start'), { recursive: true });
  symlinkSync(PLUGIN, join(pack, 'pack', 'vimrelay', 'start', 'vimrelay'));
  const out = join(pack, 'out.txt');
  // `packloadall!`: --clean has loaded the packages already (0.10+), so the new packpath needs the
  // bang. 'modeline' is on for every account but root (who runs CI), and it is the help file's
  // modeline that makes it a help buffer outside $VIMRUNTIME.
  const shown = nvimEx(['set modeline', `set packpath=${pack}`, 'packloadall!', 'help vimrelay', `call writefile([&filetype, expand('%:t'), getline('.')], '${out}')`], out);
  const [filetype, file, line] = shown.split('\n');
  expect(filetype).toBe('help');
  expect(file).toBe('vimrelay.txt');
  expect(line).toContain('*vimrelay*');
});

it('ships the tags :helptags makes of the help file as it is, one for each command', () => {
  const copy = tempDir('vimrelay-nvim-doc-');
  cpSync(join(PLUGIN, 'doc', 'vimrelay.txt'), join(copy, 'vimrelay.txt'));
  const made = nvimEx([`helptags ${copy}`], join(copy, 'tags'));
  expect(readFileSync(join(PLUGIN, 'doc', 'tags'), 'utf8')).toBe(made);
  for (const command of ['VimRelayName', 'VimRelayStatus', 'VimRelayReview', 'VimRelayAccept', 'VimRelayReject']) expect(made).toContain(`:${command}\tvimrelay.txt`);
});
