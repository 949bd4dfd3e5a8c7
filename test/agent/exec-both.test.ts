// run_command and send_keys, the same cases on a real Neovim and on a real Vim: captured output
// per command (multi-byte text), stop at the first failure with the outputs so far, output caps
// counted as JSON at character boundaries, one undo step per call; keys in key notation run to
// completion with <Esc> first, the cursor in characters, v:errmsg reported. Prompts are covered for
// Neovim in nvim-run-command.test.ts / nvim-send-keys.test.ts (Vim has no watchdog: see exec.vim).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS, RUN_COMMAND_LIMITS } from '../../protocol/index.ts';
import { nvimDriver, vimDriver, type Driver } from './drivers.ts';

const TEXT = 'héllo wörld — 日本語 🎉';

describe.each([
  ['Neovim', nvimDriver],
  ['Vim', vimDriver],
] as const)('run_command and send_keys on %s', (_kind, start) => {
  let d: Driver;
  let buf: number;
  beforeAll(async () => {
    d = await start({ files: { 'notes.txt': `${TEXT}\nsecond\n` }, open: ['notes.txt'] });
    buf = await d.bufnr('notes.txt');
  });
  afterAll(() => d.stop());

  it('runs one command and returns what it printed, multi-byte text intact', async () => {
    const data = await d.ok('run_command', { commands: `echo "${TEXT}"` });
    expect(data).toEqual({ results: [{ index: 1, output: TEXT, output_bytes: Buffer.byteLength(TEXT), truncated: false }], count: 1, output_truncated: false });
  });

  it('runs a list in order, each output apart, the change one undo step and unsaved', async () => {
    const data = await d.ok('run_command', { commands: ['%s/wörld/Welt/', 'echo getline(1)', 'let g:n = 2 | echo g:n * 21', '2s/second/zwei/'] });
    expect((data.results as { output: string }[]).map((r) => r.output.replace(/^\n/, ''))).toEqual([expect.any(String), 'héllo Welt — 日本語 🎉', '42', expect.any(String)]);
    expect(data.count).toBe(4);
    expect(await d.lines(buf)).toEqual(['héllo Welt — 日本語 🎉', 'zwei']);
    expect(await d.expr('&modified')).toBe(1);
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual([TEXT, 'second']);
  });

  it("stops at the first failure: which one, Vim's error, the outputs before it; the rest never runs", async () => {
    const outcome = await d.call('run_command', { commands: ['echo "first"', 'frobnicate', 'let g:third_ran = 1'] });
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'EDITOR_ERROR', failed_index: 2, command: 'frobnicate', vim_error: expect.stringContaining('E492'), results: [{ index: 1, output: 'first', truncated: false }] },
    });
    expect(!outcome.ok && outcome.error.hint).toMatch(/1 before it ran.*1 after it did not run/);
    expect(await d.expr('exists("g:third_ran")')).toBe(0);
    expect(await d.call('run_command', { commands: 'echo no_such_variable' })).toMatchObject({ ok: false, error: { code: 'EDITOR_ERROR', failed_index: 1, vim_error: expect.stringContaining('E121') } });
  });

  it('caps each output at max_output_bytes at a character boundary, and all outputs together as JSON', async () => {
    const data = await d.ok('run_command', { commands: ['echo repeat("日本", 100)', 'echo "short"'], max_output_bytes: 10 });
    expect(data.results).toEqual([
      { index: 1, output: '日本日', output_bytes: 600, truncated: true },
      { index: 2, output: 'short', output_bytes: 5, truncated: false },
    ]);
    expect(data.output_truncated).toBe(true);
    const big = `echo repeat('"', ${RUN_COMMAND_LIMITS.maxOutputBytes})`; // each '"' is 2 bytes of JSON
    const capped = await d.ok('run_command', { commands: [big, big, 'echo "after"'], max_output_bytes: RUN_COMMAND_LIMITS.maxOutputBytes });
    const results = capped.results as { output: string; truncated: boolean }[];
    expect(results.map((r) => r.truncated)).toEqual([true, true, true]);
    const json = results.reduce((n, r) => n + JSON.stringify(r.output).length - 2, 0);
    expect(json).toBeLessThanOrEqual(RUN_COMMAND_LIMITS.totalOutputBytes);
    expect(json).toBeGreaterThan(RUN_COMMAND_LIMITS.totalOutputBytes - 4);
    expect(Buffer.byteLength(JSON.stringify(capped))).toBeLessThan(LIMITS.maxResultBytes);
  });

  it('does not run a call the editor could only start after its deadline (start_by)', async () => {
    const params = "{'commands': ['let g:late_ran = 1'], 'max_output_bytes': 100, 'total_output_bytes': 100, 'error_bytes': 100, 'command_bytes': 100, 'timeout_ms': 1000, 'start_by': localtime() - 1}";
    const late = d.kind === 'vim' ? `vimrelay#call('run_command', ${params})` : `luaeval('__vimrelay.call("run_command", _A)', ${params})`;
    expect(await d.expr(late)).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    expect(await d.expr('exists("g:late_ran")')).toBe(0);
    const before = await d.lines(buf);
    const keys = `{'keys': 'ix', 'timeout_ms': 1000, 'error_bytes': 100, 'start_by': localtime() - 1}`;
    expect(await d.expr(d.kind === 'vim' ? `vimrelay#call('send_keys', ${keys})` : `luaeval('__vimrelay.call("send_keys", _A)', ${keys})`)).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    expect(await d.lines(buf)).toEqual(before);
  });

  it('send_keys runs keys in key notation after <Esc>, to completion, the cursor in characters', async () => {
    await d.cursor('notes.txt', 1, 0);
    const data = await d.ok('send_keys', { keys: 'ggA ✓<Esc>0f—' });
    expect(data).toMatchObject({ sent: '<Esc>ggA ✓<Esc>0f—', buf, cursor: { line: 1, col: 13 }, errmsg: null });
    expect(await d.lines(buf)).toEqual([`${TEXT} ✓`, 'second']);
    // An insert left open is ended when the keys run out.
    await d.ok('send_keys', { keys: 'jIx<Tab>' });
    expect(await d.lines(buf)).toEqual([`${TEXT} ✓`, 'x\tsecond']);
    expect(await d.expr('mode()')).not.toBe('i');
  });

  it('send_keys reports the error message the keys caused', async () => {
    const data = await d.ok('send_keys', { keys: ':frobnicate<CR>' });
    expect(data.errmsg).toContain('E492');
  });
});
