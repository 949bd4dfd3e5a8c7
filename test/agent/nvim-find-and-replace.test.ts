// find_and_replace on a real Neovim: exactly-once matching, character positions, the changedtick
// guard, and one undo step per edit even while the user is typing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LIMITS } from '../../protocol/index.ts';
import { type EditorFixture, resetLines, startEditor } from './support.ts';

describe('find_and_replace', () => {
  let f: EditorFixture;
  let buf: number;
  const reset = (lines: string[]): Promise<number> => resetLines(f.nvim, buf, lines);
  beforeAll(async () => {
    f = await startEditor({ files: { 'file.txt': 'on disk\n' }, open: ['file.txt'] });
    buf = await f.nvim.lua<number>('return vim.api.nvim_get_current_buf()');
  });
  beforeEach(() => f.nvim.lua('vim.cmd("stopinsert")'));
  afterAll(() => f.stop());

  it('replaces a unique match inside multi-byte text, with positions in characters', async () => {
    await reset(['héllo wörld — 日本語 😀 end']);
    const data = await f.ok('find_and_replace', { old_text: '日本語 😀', new_text: 'ｶﾀｶﾅ🎉' });
    expect(data).toMatchObject({ buf, path: join(f.nvim.cwd, 'file.txt'), start: { line: 1, col: 15 }, end: { line: 1, col: 20 } });
    expect(await f.lines()).toEqual(['héllo wörld — ｶﾀｶﾅ🎉 end']);
    expect(data.changedtick).toBe(await f.nvim.lua('return vim.b.changedtick'));
  });

  it('matches across lines and reports the end after multi-line new text', async () => {
    await reset(['first ü', 'second 日', 'third']);
    const data = await f.ok('find_and_replace', { buffer: buf, old_text: 'ü\nsecond 日\nth', new_text: 'A\nBé\nC😀' });
    expect(await f.lines()).toEqual(['first A', 'Bé', 'C😀ird']);
    expect(data).toMatchObject({ start: { line: 1, col: 7 }, end: { line: 3, col: 3 } });
  });

  it('deletes with an empty new_text, joining lines', async () => {
    await reset(['keep this', 'drop', 'and this']);
    const data = await f.ok('find_and_replace', { old_text: '\ndrop', new_text: '' });
    expect(await f.lines()).toEqual(['keep this', 'and this']);
    expect(data).toMatchObject({ start: { line: 1, col: 10 }, end: { line: 1, col: 10 } });
  });

  it('refuses zero matches, changing nothing', async () => {
    const tick = await reset(['alpha', 'beta']);
    expect(await f.call('find_and_replace', { old_text: 'gamma', new_text: 'x' })).toMatchObject({ ok: false, error: { code: 'NO_MATCH' } });
    expect(await f.call('find_and_replace', { old_text: 'alpha\n\nbeta', new_text: 'x' })).toMatchObject({ ok: false, error: { code: 'NO_MATCH' } });
    expect(await f.lines()).toEqual(['alpha', 'beta']);
    expect(await f.nvim.lua('return vim.b.changedtick')).toBe(tick);
  });

  it('refuses several matches, overlapping ones included, listing their positions in characters', async () => {
    const tick = await reset(['日本 x 日本', 'ü日本']);
    const outcome = await f.call('find_and_replace', { old_text: '日本', new_text: 'y' });
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'MULTIPLE_MATCHES', match_count: 3, matches: [{ line: 1, col: 1 }, { line: 1, col: 6 }, { line: 2, col: 2 }] },
    });
    expect(await f.lines()).toEqual(['日本 x 日本', 'ü日本']);
    expect(await f.nvim.lua('return vim.b.changedtick')).toBe(tick);
    await reset(['aaa']);
    expect(await f.call('find_and_replace', { old_text: 'aa', new_text: 'b' })).toMatchObject({ ok: false, error: { code: 'MULTIPLE_MATCHES', match_count: 2 } });
    expect(await f.lines()).toEqual(['aaa']);
  });

  it(`lists at most ${LIMITS.maxMatchesReported} matches`, async () => {
    await reset(Array.from({ length: 20 }, () => 'dup'));
    const outcome = await f.call('find_and_replace', { old_text: 'dup', new_text: 'x' });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.match_count).toBe(20);
    expect(outcome.error.matches).toHaveLength(LIMITS.maxMatchesReported);
  });

  it('refuses a stale expected_changedtick with the current one, changing nothing', async () => {
    const tick = await reset(['one', 'two']);
    const outcome = await f.call('find_and_replace', { old_text: 'one', new_text: 'ONE', expected_changedtick: tick - 1 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'STALE_CHANGEDTICK', current_changedtick: tick } });
    expect(await f.lines()).toEqual(['one', 'two']);
    expect(await f.nvim.lua('return vim.b.changedtick')).toBe(tick);
    expect(await f.call('find_and_replace', { old_text: 'one', new_text: 'ONE', expected_changedtick: tick })).toMatchObject({ ok: true });
    expect(await f.lines()).toEqual(['ONE', 'two']);
  });

  it('makes each edit one undo step', async () => {
    await reset(['a1', 'b1']);
    await f.ok('find_and_replace', { old_text: 'a1', new_text: 'a2\nextra' });
    await f.ok('find_and_replace', { old_text: 'b1', new_text: 'b2' });
    expect(await f.lines()).toEqual(['a2', 'extra', 'b2']);
    await f.nvim.client.command('undo');
    expect(await f.lines()).toEqual(['a2', 'extra', 'b1']);
    await f.nvim.client.command('undo');
    expect(await f.lines()).toEqual(['a1', 'b1']);
  });

  it('keeps its undo step apart from a change another client makes right after, mid-insert', async () => {
    await reset(['mine', 'theirs']);
    await f.nvim.client.input('i');
    await f.nvim.lua('return 1');
    expect(await f.nvim.lua('return vim.api.nvim_get_mode().mode')).toBe('i');
    await f.ok('find_and_replace', { old_text: 'mine', new_text: 'MINE' });
    await f.nvim.lua('vim.api.nvim_buf_set_lines(0, 1, 2, true, {"THEIRS"})');
    await f.nvim.client.command('undo');
    expect(await f.lines()).toEqual(['MINE', 'theirs']);
    await f.nvim.client.command('undo');
    expect(await f.lines()).toEqual(['mine', 'theirs']);
  });

  it('undoes exactly the edit in one step while the user is mid-insert, their typing staying theirs', async () => {
    await reset(['typed:', 'target']);
    await f.nvim.client.input('A before');
    await f.nvim.lua('return 1'); // input is processed before this request is answered
    expect(await f.nvim.lua('return vim.api.nvim_get_mode().mode')).toBe('i');
    await f.ok('find_and_replace', { old_text: 'target', new_text: 'edited' });
    await f.nvim.client.input(' after<Esc>');
    await f.nvim.lua('return 1');
    expect(await f.lines()).toEqual(['typed: before after', 'edited']);
    // One undo takes back exactly the edit; the user's insert (before and after it) is their own step.
    await f.nvim.client.command('undo');
    expect(await f.lines()).toEqual(['typed: before after', 'target']);
    await f.nvim.client.command('undo');
    expect(await f.lines()).toEqual(['typed:', 'target']);
  });

  it('leaves the file on disk alone', async () => {
    await reset(['changed in the buffer']);
    await f.ok('find_and_replace', { buffer: 'file.txt', old_text: 'changed', new_text: 'edited' });
    expect(readFileSync(join(f.nvim.cwd, 'file.txt'), 'utf8')).toBe('on disk\n');
  });

  it('reports an editor error for a buffer that cannot be modified', async () => {
    const ro = await f.nvim.lua<number>('local b = vim.api.nvim_create_buf(true, true); vim.api.nvim_buf_set_lines(b, 0, -1, true, {"locked"}); vim.bo[b].modifiable = false; return b');
    const outcome = await f.call('find_and_replace', { buffer: ro, old_text: 'locked', new_text: 'x' });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'EDITOR_ERROR', message: expect.stringMatching(/modifiable/) } });
  });

  it('refuses an unknown buffer', async () => {
    expect(await f.call('find_and_replace', { buffer: 'nope.txt', old_text: 'a', new_text: 'b' })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
  });
});
