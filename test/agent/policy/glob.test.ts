// The policy's globs: basename matching for slash-free globs, whole-path otherwise.
import { describe, expect, it } from 'vitest';
import { escapeGlob, globToRegExp, matchesGlob } from '../../../agent/policy/glob.ts';

describe('matchesGlob on paths', () => {
  it('matches a slash-free glob against the basename', () => {
    expect(matchesGlob('.env*', '/x/y/.env.local')).toBe(true);
    expect(matchesGlob('.env*', '/x/.env/notes.txt')).toBe(false);
    expect(matchesGlob('*.pem', '/etc/ssl/server.pem')).toBe(true);
    expect(matchesGlob('*.pem', '/etc/ssl/server.pem.txt')).toBe(false);
    expect(matchesGlob('id_rsa*', '/home/me/.ssh/id_rsa.pub')).toBe(true);
    expect(matchesGlob('id_rsa*', '/home/me/my_id_rsa')).toBe(false);
  });

  it('matches a glob with a slash against the whole path', () => {
    expect(matchesGlob('/home/me/src/*', '/home/me/src/a.ts')).toBe(true);
    expect(matchesGlob('/home/me/src/*', '/home/me/src/lib/a.ts')).toBe(false);
    expect(matchesGlob('/home/me/src/**', '/home/me/src/lib/a.ts')).toBe(true);
    expect(matchesGlob('/home/me/**/secret/*', '/home/me/secret/k')).toBe(true);
    expect(matchesGlob('/home/me/**/secret/*', '/home/me/a/b/secret/k')).toBe(true);
    expect(matchesGlob('src/*', '/home/me/src/a.ts')).toBe(false);
    expect(matchesGlob('**/src/*.ts', '/home/me/src/a.ts')).toBe(true);
  });

  it('expands ~/ to the home directory', () => {
    expect(matchesGlob('~/notes/**', '/home/me/notes/a/b.md', { home: '/home/me' })).toBe(true);
    expect(matchesGlob('~/notes/**', '/home/you/notes/a.md', { home: '/home/me' })).toBe(false);
    expect(matchesGlob('~/notes/**', '/home/me/notes/a.md')).toBe(false);
  });

  it('supports ?, classes, negated classes and escapes', () => {
    expect(matchesGlob('file?.txt', '/a/file1.txt')).toBe(true);
    expect(matchesGlob('file?.txt', '/a/file12.txt')).toBe(false);
    expect(matchesGlob('file[0-9].txt', '/a/file7.txt')).toBe(true);
    expect(matchesGlob('file[!0-9].txt', '/a/file7.txt')).toBe(false);
    expect(matchesGlob('file[!0-9].txt', '/a/fileX.txt')).toBe(true);
    expect(matchesGlob('a\\*b', '/x/a*b')).toBe(true);
    expect(matchesGlob('a\\*b', '/x/aXb')).toBe(false);
    expect(matchesGlob('a.b', '/x/aXb')).toBe(false);
    expect(matchesGlob('(x)+', '/y/(x)+')).toBe(true);
  });
});

describe('matchesGlob on editor names', () => {
  it('matches the whole name, slashes included', () => {
    const opts = { basename: false };
    expect(matchesGlob('work-*', 'work-nvim', opts)).toBe(true);
    expect(matchesGlob('work-*', 'home-work-nvim', opts)).toBe(false);
    expect(matchesGlob('nvim', 'proj/nvim', opts)).toBe(false);
    expect(matchesGlob('*', 'proj/nvim', opts)).toBe(false);
    expect(matchesGlob('**', 'proj/nvim', opts)).toBe(true);
  });

  it('escapeGlob makes a name match only itself', () => {
    const name = 'odd*[name]?\\x';
    const glob = escapeGlob(name);
    expect(matchesGlob(glob, name, { basename: false })).toBe(true);
    expect(matchesGlob(glob, 'oddXXnamey\\x', { basename: false })).toBe(false);
    expect(globToRegExp(glob).test(name)).toBe(true);
  });
});
