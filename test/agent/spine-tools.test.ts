// The spine tools, the same cases on a real Neovim and on a real Vim (plugin/vim through the
// agent's Vim listener): read_buffer, get_state_brief, find_and_replace and write_buffer with
// Unicode, the changedtick guard, one undo step per edit, long text, and (Vim) UNSUPPORTED for the
// tools Vim does not implement yet.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIM_CHUNK_UNITS } from '../../agent/editors/vim/staging.ts';
import { vimTool } from '../../agent/editors/vim/tools.ts';
import { TOOLS } from '../../protocol/index.ts';
import { nvimDriver, vimDriver, type Driver, type DriverOptions } from './drivers.ts';

const UNICODE = ['héllo wörld — 日本語 🎉', 'emoji 😀🎉 end', 'plain ascii', ''];

const FIXTURE: DriverOptions = {
  files: {
    'uni.txt': UNICODE.join('\n') + '\n',
    'ten.txt': Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n',
    'edit.txt': 'on disk\n',
    'closed.txt': 'on disk ü\n',
    'sub/other.txt': 'other 1\nother 2\n',
  },
  open: ['uni.txt', 'ten.txt', 'edit.txt', 'sub/other.txt'],
};

describe.each([
  ['Neovim', nvimDriver],
  ['Vim', vimDriver],
] as const)('the spine tools on %s', (_kind, start) => {
  let d: Driver;
  beforeAll(async () => {
    d = await start(FIXTURE);
  });
  afterAll(() => d.stop());

  it('reads the current buffer by default, Unicode intact, with changedtick and path', async () => {
    const data = await d.ok('read_buffer');
    expect(data).toMatchObject({
      path: join(d.cwd, 'uni.txt'),
      total_lines: 4,
      start_line: 1,
      end_line: 4,
      lines: UNICODE,
      truncated: false,
      next_start_line: null,
    });
    expect(data.changedtick).toBe(await d.tick(data.buf as number));
  });

  it('pages with max_lines, clamps and swaps bounds, and resolves paths', async () => {
    const ten = await d.bufnr('ten.txt');
    expect(await d.ok('read_buffer', { buffer: 'ten.txt', start_line: 2, end_line: 9, max_lines: 3 })).toMatchObject({
      buf: ten,
      start_line: 2,
      end_line: 4,
      lines: ['line 2', 'line 3', 'line 4'],
      truncated: true,
      next_start_line: 5,
    });
    expect(await d.ok('read_buffer', { buffer: ten, start_line: 12, end_line: 8 })).toMatchObject({ start_line: 8, end_line: 10, truncated: false });
    expect((await d.ok('read_buffer', { buffer: `${d.cwd}/sub/../sub//other.txt` })).path).toBe(join(d.cwd, 'sub/other.txt'));
    expect(await d.call('read_buffer', { buffer: 'nope.txt' })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND', path: join(d.cwd, 'nope.txt') } });
    expect(await d.call('read_buffer', { buffer: 999 })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
  });

  it('gives the state brief: buffers, the active window with its cursor in characters', async () => {
    await d.cursor('uni.txt', 1, Buffer.byteLength('héllo wörld — 日'));
    const data = await d.ok('get_state_brief');
    expect(data).toMatchObject({ cwd: d.cwd, buffers_truncated: false, modified_buffers: [] });
    expect(data.terminals).toBeUndefined();
    const windows = data.windows as { role: string; path: string; cursor: unknown; context: { lines: string[] } }[];
    expect(windows[0]).toMatchObject({ role: 'active', path: join(d.cwd, 'uni.txt'), cursor: { line: 1, col: 16 } });
    expect(windows[0]?.context.lines).toEqual(UNICODE);
    const listed = (data.buffers as { path: string; listed: boolean }[]).filter((b) => b.listed).map((b) => b.path);
    expect(listed).toEqual(['uni.txt', 'ten.txt', 'edit.txt', 'sub/other.txt'].map((p) => join(d.cwd, p)));
  });

  it('replaces a unique match in multi-byte text, positions in characters, as one undo step', async () => {
    const buf = await d.bufnr('uni.txt');
    // A change of the user's just before, in no undo block of its own yet: the edit must not join it.
    await d.setLine(buf, 3, 'typed');
    const data = await d.ok('find_and_replace', { old_text: '日本語 🎉', new_text: 'ｶﾀｶﾅ😀' });
    expect(data).toMatchObject({ buf, start: { line: 1, col: 15 }, end: { line: 1, col: 20 } });
    expect((await d.lines(buf))[0]).toBe('héllo wörld — ｶﾀｶﾅ😀');
    expect(data.changedtick).toBe(await d.tick(buf));
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual([UNICODE[0], UNICODE[1], 'typed', UNICODE[3]]);
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual(UNICODE);
  });

  it('matches across lines in a buffer that is not current, one undo step there too', async () => {
    const buf = await d.bufnr('sub/other.txt');
    const data = await d.ok('find_and_replace', { buffer: 'sub/other.txt', old_text: 'r 1\not', new_text: 'A\nBé\nC😀' });
    expect(data).toMatchObject({ buf, start: { line: 1, col: 5 }, end: { line: 3, col: 3 } });
    expect(await d.lines(buf)).toEqual(['otheA', 'Bé', 'C😀her 2']);
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual(['other 1', 'other 2']);
  });

  it('refuses zero or several matches, and a stale changedtick, changing nothing', async () => {
    const buf = await d.bufnr('ten.txt');
    const before = await d.tick(buf);
    expect(await d.call('find_and_replace', { buffer: buf, old_text: 'absent', new_text: 'x' })).toMatchObject({ ok: false, error: { code: 'NO_MATCH' } });
    expect(await d.call('find_and_replace', { buffer: buf, old_text: 'line 1', new_text: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'MULTIPLE_MATCHES', match_count: 2, matches: [{ line: 1, col: 1 }, { line: 10, col: 1 }] },
    });
    expect(await d.call('find_and_replace', { buffer: buf, old_text: 'line 2', new_text: 'x', expected_changedtick: before + 1 })).toMatchObject({
      ok: false,
      error: { code: 'STALE_CHANGEDTICK', current_changedtick: before },
    });
    expect(await d.tick(buf)).toBe(before);
    expect(await d.ok('find_and_replace', { buffer: buf, old_text: 'line 2', new_text: 'two ✓', expected_changedtick: before })).toMatchObject({
      start: { line: 2, col: 1 },
    });
  });

  it('write_buffer needs the tick of an existing buffer, replaces it as one undo step, never saves', async () => {
    const { buf, changedtick: before } = (await d.ok('read_buffer', { buffer: 'edit.txt' })) as { buf: number; changedtick: number };
    expect(await d.call('write_buffer', { buffer: 'edit.txt', text: 'clobber' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', current_changedtick: before, hint: expect.stringContaining('read_buffer') },
    });
    expect(await d.call('write_buffer', { buffer: 'edit.txt', text: 'clobber', expected_changedtick: before + 3 })).toMatchObject({
      ok: false,
      error: { code: 'STALE_CHANGEDTICK', current_changedtick: before },
    });
    const data = await d.ok('write_buffer', { buffer: 'edit.txt', text: 'new ü\n日本語 🎉\n\n', expected_changedtick: before });
    expect(data).toMatchObject({ buf, path: join(d.cwd, 'edit.txt'), created: false, total_lines: 3 });
    expect(await d.lines(buf)).toEqual(['new ü', '日本語 🎉', '']);
    expect(readFileSync(join(d.cwd, 'edit.txt'), 'utf8')).toBe('on disk\n');
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual(['on disk']);
  });

  it('write_buffer loads a file on disk (tick required) and creates a listed buffer for a new path', async () => {
    expect(await d.call('write_buffer', { buffer: 'closed.txt', text: 'x' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await d.lines(await d.bufnr('closed.txt'))).toEqual(['on disk ü']);
    const path = join(d.cwd, 'new/created.md');
    const data = await d.ok('write_buffer', { buffer: 'new/created.md', text: '# Títle\nbody' });
    expect(data).toMatchObject({ path, created: true, total_lines: 2 });
    expect(await d.lines(data.buf as number)).toEqual(['# Títle', 'body']);
    expect(await d.listed(data.buf as number)).toBe(true);
    expect(existsSync(path)).toBe(false);
    expect(await d.call('write_buffer', { buffer: path, text: 'y' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', current_changedtick: data.changedtick },
    });
    expect(await d.call('write_buffer', { buffer: 'sub', text: 'y' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
  });

  it('writes multi-megabyte text intact (on Vim: sent in pieces, emoji at piece boundaries)', async () => {
    const text = Array.from({ length: 30_000 }, (_, i) => `${i} 🎉日本語 héllo ${'😀'.repeat(i % 7)}`).join('\n');
    expect(text.length).toBeGreaterThan(VIM_CHUNK_UNITS * 20);
    const { buf, changedtick } = (await d.ok('read_buffer', { buffer: 'ten.txt' })) as { buf: number; changedtick: number };
    expect(await d.ok('write_buffer', { buffer: buf, text, expected_changedtick: changedtick })).toMatchObject({ total_lines: 30_000 });
    expect((await d.lines(buf)).join('\n')).toBe(text);
  });
});

describe('tools Vim does not implement yet', () => {
  let d: Driver;
  beforeAll(async () => {
    d = await vimDriver({ files: { 'a.txt': 'a\n' }, open: ['a.txt'] });
  });
  afterAll(() => d.stop());

  // Any editor tool Vim does not answer yet (the list shrinks as Vim catches up).
  const missing = TOOLS.find((t) => t.routing === 'editor' && !vimTool(t.name));
  it.runIf(missing)('answer UNSUPPORTED, saying "not yet implemented for Vim", with a hint', async () => {
    expect(await d.editor.run(missing!.name, {}, AbortSignal.timeout(30_000))).toMatchObject({
      ok: false,
      error: { code: 'UNSUPPORTED', message: expect.stringContaining('not yet implemented for Vim'), hint: expect.any(String) },
    });
  });
});
