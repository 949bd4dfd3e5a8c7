/**
 * Where the newer editors and what the machine lacks come from (scripts/editors/sources.ts) and how
 * a run selects them (test/setup/editors.ts): the machine's Debian archive found in either format
 * of apt sources, an Ubuntu machine's release (its `universe` too), the dependencies apt-cache
 * prints read as groups of alternatives, and a selection that names an unknown editor or two of
 * one program refused with what to do.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dependencyGroups } from '../../scripts/editors/apt.ts';
import { archiveFor, deb822Entries, machineArchive, machineRelease, oneLineEntries } from '../../scripts/editors/sources.ts';
import { tempDir } from '../helpers/temp.ts';
import { selectedEditors } from '../setup/editors.ts';

describe("the machine's Debian archive", () => {
  it('is the deb822 stanza serving its release from main, with its keyring', () => {
    const text = [
      'Types: deb',
      '# a comment',
      'URIs: http://mirror.example/debian',
      'Suites: bookworm bookworm-updates',
      'Components: main contrib',
      'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg',
      '',
      'Types: deb',
      'URIs: http://mirror.example/debian-security',
      'Suites: bookworm-security',
      'Components: main',
    ].join('\n');
    expect(archiveFor(deb822Entries(text), 'bookworm')).toEqual({ uri: 'http://mirror.example/debian', signedBy: '/usr/share/keyrings/debian-archive-keyring.gpg' });
  });

  it('skips a disabled stanza, sources-only entries and other releases', () => {
    const text = ['Types: deb', 'URIs: http://a.example/debian', 'Suites: bookworm', 'Components: main', 'Enabled: no', '', 'Types: deb-src', 'URIs: http://b.example/debian', 'Suites: bookworm', 'Components: main', '', 'Types: deb', 'URIs: http://c.example/debian', 'Suites: trixie', 'Components: main'].join('\n');
    expect(archiveFor(deb822Entries(text), 'bookworm')).toBeUndefined();
  });

  it('is read from one-line entries too, with or without options', () => {
    const text = ['# deb http://old.example/debian bookworm main', 'deb-src http://src.example/debian bookworm main', 'deb [arch=amd64 signed-by=/k.gpg] http://mirror.example/debian bookworm main', 'deb http://other.example/debian bookworm main'].join('\n');
    expect(archiveFor(oneLineEntries(text), 'bookworm')).toEqual({ uri: 'http://mirror.example/debian', signedBy: '/k.gpg' });
    expect(archiveFor(oneLineEntries('deb http://m.example/debian bookworm contrib'), 'bookworm')).toBeUndefined();
  });
});

describe("the machine's release", () => {
  /** An /etc with `os-release` and one deb822 sources file. */
  function etc(osRelease: string, sources: string): string {
    const dir = tempDir('vimrelay-etc-');
    mkdirSync(join(dir, 'apt/sources.list.d'), { recursive: true });
    writeFileSync(join(dir, 'os-release'), osRelease);
    writeFileSync(join(dir, 'apt/sources.list.d/os.sources'), sources);
    return dir;
  }
  const ubuntu = etc('NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\nVERSION_CODENAME=noble\n', 'Types: deb\nURIs: http://archive.example/ubuntu/\nSuites: noble noble-updates\nComponents: main restricted universe multiverse\n');

  it('is Ubuntu\'s, main and universe (clangd and pylsp are in universe)', () => {
    expect(machineRelease(ubuntu)).toEqual({ distribution: 'ubuntu', codename: 'noble', archive: { uri: 'http://archive.example/ubuntu/' }, components: ['main', 'universe'] });
  });

  it("is no source of Debian's newer editors on Ubuntu, saying so", () => {
    expect(() => machineArchive(ubuntu)).toThrow(/this machine is not Debian \(os-release ID "ubuntu"\)/);
  });

  it('is refused on another distribution, naming it', () => {
    expect(() => machineRelease(etc('ID=fedora\nVERSION_CODENAME=\n', ''))).toThrow(/neither Debian nor Ubuntu \(os-release ID "fedora"\)/);
  });
});

describe('the dependencies apt-cache prints', () => {
  it('are groups of alternatives by package, a virtual package standing for its providers', () => {
    const out = [
      'python3-pylsp',
      '  Depends: python3-jedi',
      '  Depends: <python3:any>',
      '    python3',
      'python3.11',
      '  PreDepends: python3.11-minimal',
      ' |Depends: media-types',
      '  Depends: mime-support',
      'vim-ale',
      ' |Depends: vim',
      '    vim-gtk3',
      '    vim-nox',
      '  Depends: neovim',
    ].join('\n');
    expect(dependencyGroups(out)).toEqual(
      new Map([
        ['python3-pylsp', [['python3-jedi'], ['python3']]],
        ['python3.11', [['python3.11-minimal'], ['media-types', 'mime-support']]],
        ['vim-ale', [['vim', 'vim-gtk3', 'vim-nox', 'neovim']]],
      ]),
    );
  });
});

describe('VIMRELAY_TEST_EDITORS', () => {
  it('names nothing by default: the editors on PATH', () => {
    expect(selectedEditors(undefined)).toEqual([]);
    expect(selectedEditors('')).toEqual([]);
  });

  it('names a Neovim and a Vim', () => {
    expect(selectedEditors('nvim-0.12, vim-9.2')).toEqual(['nvim-0.12', 'vim-9.2']);
  });

  it('refuses an unknown editor, listing the known ones', () => {
    expect(() => selectedEditors('nvim-0.11')).toThrow(/nvim-0\.11: choose among nvim-0\.10, nvim-0\.12, vim-9\.1, vim-9\.2/);
  });

  it('refuses two of one program', () => {
    expect(() => selectedEditors('nvim-0.10,nvim-0.12')).toThrow(/nvim-0\.10 and nvim-0\.12: one nvim per run/);
  });
});
