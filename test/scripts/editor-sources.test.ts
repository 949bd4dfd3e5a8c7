/**
 * Where the newer editors come from (scripts/editors/sources.ts) and how a run selects them
 * (test/setup/editors.ts): the machine's Debian archive found in either format of apt sources, and
 * a selection that names an unknown editor or two of one program refused with what to do.
 */
import { describe, expect, it } from 'vitest';
import { archiveFor, deb822Entries, oneLineEntries } from '../../scripts/editors/sources.ts';
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
