// The pure pieces of the Neovim adapter: address parsing, probe backoff, and the editor's info.
import { describe, expect, it } from 'vitest';
import { parseAddress } from '../../../../agent/editors/nvim/address.ts';
import { ProbeBackoff } from '../../../../agent/editors/nvim/backoff.ts';
import { parseApiInfo, wireEditor } from '../../../../agent/editors/nvim/info.ts';

describe('parseAddress', () => {
  it('tells socket paths from host:port', () => {
    expect(parseAddress('/run/user/1000/nvim.1.0')).toEqual({ path: '/run/user/1000/nvim.1.0' });
    expect(parseAddress('relative/nvim.sock')).toEqual({ path: 'relative/nvim.sock' });
    expect(parseAddress('/tmp/with:colon:1')).toEqual({ path: '/tmp/with:colon:1' });
    expect(parseAddress('127.0.0.1:6666')).toEqual({ host: '127.0.0.1', port: 6666 });
    expect(parseAddress('localhost:1')).toEqual({ host: 'localhost', port: 1 });
    expect(parseAddress('[::1]:6666')).toEqual({ host: '::1', port: 6666 });
    expect(parseAddress('host:99999')).toEqual({ path: 'host:99999' });
  });
});

describe('ProbeBackoff', () => {
  it('waits longer after each failure, up to the cap', () => {
    const b = new ProbeBackoff({ baseMs: 1_000, capMs: 4_000 });
    expect(b.due('s', 'id', 0)).toBe(true);
    b.failed('s', 'id', 0);
    expect(b.due('s', 'id', 999)).toBe(false);
    expect(b.due('s', 'id', 1_000)).toBe(true);
    b.failed('s', 'id', 1_000);
    expect(b.due('s', 'id', 2_999)).toBe(false);
    expect(b.due('s', 'id', 3_000)).toBe(true);
    b.failed('s', 'id', 3_000);
    b.failed('s', 'id', 7_000);
    expect(b.due('s', 'id', 10_999)).toBe(false);
    expect(b.due('s', 'id', 11_000)).toBe(true);
  });

  it('retries at once a socket that was replaced, and forgets what is gone', () => {
    const b = new ProbeBackoff({ baseMs: 1_000 });
    b.failed('s', 'old', 0);
    expect(b.due('s', 'new', 1)).toBe(true);
    b.failed('t', 'x', 0);
    b.retain(['s']);
    expect(b.due('t', 'x', 1)).toBe(true);
    b.forget('s');
    expect(b.due('s', 'old', 1)).toBe(true);
  });
});

describe('editor info', () => {
  it('reads the version and the missing API functions from nvim_get_api_info', () => {
    const functions = ['nvim_exec_lua', 'nvim_buf_set_text', 'nvim_create_autocmd', 'nvim_create_augroup'].map((name) => ({ name }));
    expect(parseApiInfo([3, { version: { major: 0, minor: 7, patch: 2, api_level: 9 }, functions }])).toEqual({ channel: 3, version: '0.7.2', missing: [] });
    expect(parseApiInfo([4, { version: { major: 0, minor: 12, patch: 0, prerelease: true }, functions: functions.slice(1) }])).toEqual({
      channel: 4,
      version: '0.12.0-dev',
      missing: ['nvim_exec_lua'],
    });
    expect(() => parseApiInfo('hello')).toThrow();
  });

  it('fits the wire limits', () => {
    const info = wireEditor('nvim-1', '0.7.2', { name: 'n'.repeat(500), chosen: false, cwd: '/w', current_file: null, pid: 1 }, 'hit-enter', 1_700_000_000);
    expect(info).toEqual({
      id: 'nvim-1',
      kind: 'nvim',
      version: '0.7.2',
      name: 'n'.repeat(200),
      cwd: '/w',
      current_file: null,
      pid: 1,
      waiting_for: 'hit-enter',
      ui: null,
      started_at: 1_700_000_000,
    });
  });
});
