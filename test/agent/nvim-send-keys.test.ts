// send_keys on a real Neovim: <Esc> first, key notation, mappings, keys run to completion (an
// unfinished insert is ended), mode/buffer/cursor after in characters, errors via v:errmsg, and a
// prompt interrupted by the CTRL-C watchdog with the editor usable after.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SEND_KEYS_LIMITS } from '../../protocol/index.ts';
import { startEditor, type EditorFixture } from './support.ts';

describe('send_keys', () => {
  let f: EditorFixture;
  let buf: number;
  const reset = (lines: string[]): Promise<unknown> => f.nvim.lua('vim.api.nvim_buf_set_lines(0, 0, -1, true, ...); vim.api.nvim_win_set_cursor(0, {1, 0})', lines);
  beforeAll(async () => {
    f = await startEditor({ files: { 'keys.txt': 'one\n' }, open: ['keys.txt'] });
    buf = await f.nvim.lua<number>('return vim.api.nvim_get_current_buf()');
  });
  beforeEach(() => f.nvim.lua('vim.cmd("stopinsert")'));
  afterAll(() => f.stop());

  it('types multi-byte text and reports what was sent, the mode and the cursor in characters', async () => {
    await reset(['']);
    const data = await f.ok('send_keys', { keys: 'ihéllo wörld — 日本語 🎉<Esc>' });
    expect(await f.lines()).toEqual(['héllo wörld — 日本語 🎉']);
    expect(data).toMatchObject({
      sent: '<Esc>ihéllo wörld — 日本語 🎉<Esc>',
      mode: 'n',
      buf,
      cursor: { line: 1, col: 19 },
      errmsg: null,
    });
  });

  it('sends <Esc> first, so that keys act in normal mode even while the user is inserting', async () => {
    await reset(['keep', 'drop']);
    await f.nvim.client.input('jA typed');
    expect(await f.nvim.lua('return vim.api.nvim_get_mode().mode')).toBe('i');
    await f.ok('send_keys', { keys: 'dd' });
    expect(await f.lines()).toEqual(['keep']);
  });

  it('ends an unfinished insert when the keys run out, leaving normal mode', async () => {
    await reset(['start']);
    const data = await f.ok('send_keys', { keys: 'A 日本' });
    expect(await f.lines()).toEqual(['start 日本']);
    expect(data).toMatchObject({ mode: 'n', cursor: { line: 1, col: 8 } });
  });

  it('applies mappings and key notation, and can leave visual mode on', async () => {
    await f.nvim.client.command('nnoremap <Space>m :let g:mapped = "yes"<CR>');
    await f.ok('send_keys', { keys: '<Space>m' });
    expect(await f.nvim.lua('return vim.g.mapped')).toBe('yes');
    await reset(['a', 'b']);
    expect(await f.ok('send_keys', { keys: 'Vj' })).toMatchObject({ mode: 'V', cursor: { line: 2, col: 1 } });
  });

  it('reports the error the keys caused, and leaves v:errmsg as it was when they caused none', async () => {
    const failed = await f.ok('send_keys', { keys: ':nosuchcommand<CR>' });
    expect(failed.errmsg).toMatch(/^E492/);
    await f.nvim.lua('vim.v.errmsg = "the user\'s own error"');
    expect(await f.ok('send_keys', { keys: 'gg' })).toMatchObject({ errmsg: null });
    expect(await f.nvim.lua('return vim.v.errmsg')).toBe('the user\'s own error');
  });

  it('interrupts keys waiting on a prompt after timeout_ms (TIMEOUT); the editor stays usable', async () => {
    const started = Date.now();
    const outcome = await f.call('send_keys', { keys: ':let g:reply = input("Name? ")<CR>', timeout_ms: 300 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT', sent: '<Esc>:let g:reply = input("Name? ")<CR>' } });
    expect(Date.now() - started).toBeLessThan(SEND_KEYS_LIMITS.defaultTimeoutMs);
    expect(await f.nvim.lua('return vim.api.nvim_get_mode().mode')).toBe('n');
    expect(await f.nvim.lua('return vim.g.reply')).toBeNull();
    // Keys that answer the prompt themselves complete.
    await f.ok('send_keys', { keys: ':let g:reply = input("Name? ")<CR>wörld<CR>' });
    expect(await f.nvim.lua('return vim.g.reply')).toBe('wörld');
  });

  it('refuses empty and over-long keys', async () => {
    expect(await f.call('send_keys', { keys: '' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await f.call('send_keys', { keys: 'x'.repeat(SEND_KEYS_LIMITS.keysChars + 1) })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
  });
});
