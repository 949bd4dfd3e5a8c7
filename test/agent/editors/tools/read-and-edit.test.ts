// Reading and editing, the same cases on a real Neovim and on a real Vim (plugin/vim through the
// agent's Vim listener): read_buffer, get_state_brief, find_and_replace and write_buffer with
// Unicode, the changedtick guard, one undo step per edit (also while the user types, on a Vim in
// Normal mode), long text and the read caps.
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_BUDGET_BYTES } from '../../../../agent/editors/tools/budget.ts';
import { VIM_CHUNK_UNITS } from '../../../../agent/editors/vim/staging.ts';
import { LIMITS } from '../../../../protocol/index.ts';
import { DRIVERS, pageBytes, replaceLines, setLines, waitFor, type Driver, type DriverOptions } from '../../../helpers/editors.ts';

const UNICODE = ['héllo wörld — 日本語 🎉', 'emoji 😀🎉 end', 'plain ascii', ''];

const FIXTURE: DriverOptions = {
  files: {
    'uni.txt': UNICODE.join('\n') + '\n',
    'ten.txt': Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n',
    'edit.txt': 'on disk\n',
    'closed.txt': 'on disk ü\n',
    'sub/other.txt': 'other 1\nother 2\n',
    'later.txt': 'not loaded yet\n',
    'on-disk-only.txt': 'nobody opened me\n',
  },
  open: ['uni.txt', 'ten.txt', 'edit.txt', 'sub/other.txt'],
};

/** A new listed buffer without a name holding `lines`, made with Vimscript both editors share. */
async function scratch(d: Driver, lines: string[]): Promise<number> {
  const b = await d.expr<number>('bufadd("")');
  await d.expr(`setbufvar(${b}, '&buflisted', 1)`);
  await d.expr(`bufload(${b})`);
  await setLines(d, b, lines);
  return b;
}

describe.each(DRIVERS)('reading and editing on %s', (_kind, start) => {
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

  it('reads unsaved text, not the file', async () => {
    const buf = await d.bufnr('sub/other.txt');
    await d.setLine(buf, 1, 'edited, not saved ✓');
    expect((await d.ok('read_buffer', { buffer: buf })).lines).toEqual(['edited, not saved ✓', 'other 2']);
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual(['other 1', 'other 2']);
  });

  it('clamps out-of-range bounds and swaps reversed ones, and pages on to the end', async () => {
    const ten = await d.bufnr('ten.txt');
    expect(await d.ok('read_buffer', { buffer: ten, start_line: 8, end_line: 500 })).toMatchObject({
      start_line: 8,
      end_line: 10,
      lines: ['line 8', 'line 9', 'line 10'],
      truncated: false,
      next_start_line: null,
    });
    expect(await d.ok('read_buffer', { buffer: ten, start_line: 99 })).toMatchObject({ start_line: 10, end_line: 10, lines: ['line 10'] });
    expect(await d.ok('read_buffer', { buffer: ten, start_line: 4, end_line: 2 })).toMatchObject({ start_line: 2, end_line: 4, lines: ['line 2', 'line 3', 'line 4'] });
    expect(await d.ok('read_buffer', { buffer: ten, start_line: 5, end_line: 9, max_lines: 5 })).toMatchObject({ end_line: 9, truncated: false, next_start_line: null });
  });

  it('resolves paths relative to the cwd, absolute, unnormalized and through symlinks', async () => {
    const abs = join(d.cwd, 'sub/other.txt');
    const byRel = await d.ok('read_buffer', { buffer: 'sub/other.txt' });
    expect(byRel.path).toBe(abs);
    expect((await d.ok('read_buffer', { buffer: abs })).buf).toBe(byRel.buf);
    expect((await d.ok('read_buffer', { buffer: './sub/../sub/other.txt' })).buf).toBe(byRel.buf);
    expect((await d.ok('read_buffer', { buffer: `${d.cwd}/sub/` + '/other.txt' })).buf).toBe(byRel.buf);
    symlinkSync(join(d.cwd, 'sub'), join(d.cwd, 'link'));
    expect((await d.ok('read_buffer', { buffer: 'link/other.txt' })).buf).toBe(byRel.buf);
  });

  it('loads an existing but unloaded buffer named explicitly', async () => {
    const buf = await d.expr<number>(`bufadd(${JSON.stringify(join(d.cwd, 'later.txt'))})`);
    expect(await d.expr(`bufloaded(${buf})`)).toBe(0);
    expect((await d.ok('read_buffer', { buffer: 'later.txt' })).lines).toEqual(['not loaded yet']);
    expect(await d.expr(`bufloaded(${buf})`)).toBe(1);
  });

  it('refuses an unknown buffer number, and a file on disk that has no buffer (adding none)', async () => {
    expect(await d.call('read_buffer', { buffer: 9999 })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
    expect(await d.call('read_buffer', { buffer: 'on-disk-only.txt' })).toMatchObject({
      ok: false,
      error: { code: 'BUFFER_NOT_FOUND', path: join(d.cwd, 'on-disk-only.txt'), hint: expect.stringMatching(/open/i) },
    });
    expect(await d.bufnr('on-disk-only.txt')).toBe(-1);
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

  it('write_buffer needs a tick for a file on disk, leaving no buffer when refused, and creates a listed buffer for a new path', async () => {
    expect(await d.call('write_buffer', { buffer: 'closed.txt', text: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', path: join(d.cwd, 'closed.txt'), hint: expect.stringContaining('open_file') },
    });
    expect(await d.bufnr('closed.txt')).toBe(-1);
    expect(await d.call('write_buffer', { buffer: 'closed.txt', text: 'x', expected_changedtick: 1 })).toMatchObject({ ok: false, error: { code: 'STALE_CHANGEDTICK' } });
    expect(await d.bufnr('closed.txt')).toBe(-1);
    const opened = await d.ok('open_file', { path: 'closed.txt' });
    expect(await d.lines(opened.buf as number)).toEqual(['on disk ü']);
    expect(await d.ok('write_buffer', { buffer: 'closed.txt', text: 'x', expected_changedtick: opened.changedtick })).toMatchObject({ buf: opened.buf, created: false });
    expect(await d.lines(opened.buf as number)).toEqual(['x']);
    expect(readFileSync(join(d.cwd, 'closed.txt'), 'utf8')).toBe('on disk ü\n');
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

  it('deletes with an empty new_text, joining lines', async () => {
    const buf = await scratch(d, ['keep this', 'drop', 'and this']);
    const data = await d.ok('find_and_replace', { buffer: buf, old_text: '\ndrop', new_text: '' });
    expect(await d.lines(buf)).toEqual(['keep this', 'and this']);
    expect(data).toMatchObject({ start: { line: 1, col: 10 }, end: { line: 1, col: 10 } });
  });

  it('keeps the cursor on its text: after the edit on its line by the change, on later lines by the lines', async () => {
    const buf = await scratch(d, ['l1', 'l2', 'l3qq', 'l4']);
    await d.command(`buffer ${buf}`);
    /** The cursor as [line, 0-based byte], and as get_state_brief reports it. */
    const cursor = async (): Promise<[number, number, unknown]> => {
      const [, line, col] = await d.expr<number[]>('getcurpos()');
      return [line!, col! - 1, ((await d.ok('get_state_brief')).windows as { cursor: unknown }[])[0]!.cursor];
    };
    const edit = async (old_text: string, new_text: string): Promise<void> => {
      await d.ok('find_and_replace', { old_text, new_text, expected_changedtick: await d.tick(buf) });
    };
    await d.command('call cursor(3, 4)');
    await edit('l3', '日本語日本語');
    expect(await cursor()).toEqual([3, Buffer.byteLength('日本語日本語q'), { line: 3, col: 8 }]);
    await edit('l1\nl2\n', '');
    expect(await cursor()).toEqual([1, Buffer.byteLength('日本語日本語q'), { line: 1, col: 8 }]);
    await edit('\nl4', '\nnew\nl4');
    await edit('本語日本語', 'X\nY');
    expect(await d.lines(buf)).toEqual(['日X', 'Yqq', 'new', 'l4']);
    expect(await cursor()).toEqual([2, 2, { line: 2, col: 3 }]);
    await edit('日X\nY', 'J');
    expect(await cursor()).toEqual([1, 2, { line: 1, col: 3 }]);
    await edit('J', 'JJJ');
    expect(await cursor()).toEqual([1, 4, { line: 1, col: 5 }]);
    // Before the edit on its line, and on an earlier line: the cursor stays.
    await d.command('call cursor(1, 2)');
    await edit('Jqq', 'Q');
    await edit('new\n', 'a\nb\nc\n');
    expect(await d.lines(buf)).toEqual(['JJQ', 'a', 'b', 'c', 'l4']);
    expect(await cursor()).toEqual([1, 1, { line: 1, col: 2 }]);
    // apply_diff: lines added and removed above the cursor move it by as many lines.
    await d.command('call cursor(4, 1)');
    await d.ok('apply_diff', { diff: '@@ -1,2 +1,1 @@\n-JJQ\n-a\n+A\n', expected_changedtick: await d.tick(buf) });
    expect(await cursor()).toEqual([3, 0, { line: 3, col: 1 }]);
    await d.ok('apply_diff', { diff: '@@ -1 +1,3 @@\n-A\n+X\n+Y\n+Z\n', expected_changedtick: await d.tick(buf) });
    expect(await d.lines(buf)).toEqual(['X', 'Y', 'Z', 'b', 'c', 'l4']);
    expect(await cursor()).toEqual([5, 0, { line: 5, col: 1 }]);
  });

  it('keeps the cursor of another window on its text when an edit ends on its line, before it', async () => {
    const buf = await scratch(d, ['first ü line', 'second line here', 'third']);
    const current = await d.expr<number>('win_getid()');
    await d.command(`belowright sbuffer ${buf}`);
    // On the "h" of "here" (byte 12).
    await d.command('call cursor(2, 13) | wincmd p');
    const other = await d.expr<number>('win_getid(winnr("#"))');
    const edit = async (old_text: string, new_text: string): Promise<void> => {
      await d.ok('find_and_replace', { buffer: buf, old_text, new_text, expected_changedtick: await d.tick(buf) });
    };
    try {
      // Line 2's text after "se" joins line 1: the cursor goes with its "h".
      await edit(' ü line\nse', '—');
      expect(await d.lines(buf)).toEqual(['first—cond line here', 'third']);
      expect(await d.expr(`getcurpos(${other})[1:2]`)).toEqual([1, Buffer.byteLength('first—cond line ') + 1]);
      // Split again, in the middle of the replacement: it follows to the new last line.
      await edit('—co', 'X\nYY');
      expect(await d.lines(buf)).toEqual(['firstX', 'YYnd line here', 'third']);
      expect(await d.expr(`getcurpos(${other})[1:2]`)).toEqual([2, Buffer.byteLength('YYnd line ') + 1]);
      // Three lines into one, ending on its line.
      await edit('firstX\nYYnd', 'Z');
      expect(await d.lines(buf)).toEqual(['Z line here', 'third']);
      expect(await d.expr(`getcurpos(${other})[1:2]`)).toEqual([1, Buffer.byteLength('Z line ') + 1]);
      expect(await d.expr('win_getid()')).toBe(current);
    } finally {
      await d.command('only');
    }
  });

  it('refuses zero matches (across lines too) and several, overlapping ones included, listing them in characters', async () => {
    const buf = await scratch(d, ['日本 x 日本', 'ü日本']);
    const tick = await d.tick(buf);
    expect(await d.call('find_and_replace', { buffer: buf, old_text: '日本\n\nü', new_text: 'x' })).toMatchObject({ ok: false, error: { code: 'NO_MATCH' } });
    expect(await d.call('find_and_replace', { buffer: buf, old_text: '日本', new_text: 'y' })).toMatchObject({
      ok: false,
      error: { code: 'MULTIPLE_MATCHES', match_count: 3, matches: [{ line: 1, col: 1 }, { line: 1, col: 6 }, { line: 2, col: 2 }] },
    });
    expect(await d.lines(buf)).toEqual(['日本 x 日本', 'ü日本']);
    expect(await d.tick(buf)).toBe(tick);
    const aaa = await scratch(d, ['aaa']);
    expect(await d.call('find_and_replace', { buffer: aaa, old_text: 'aa', new_text: 'b' })).toMatchObject({ ok: false, error: { code: 'MULTIPLE_MATCHES', match_count: 2 } });
    expect(await d.lines(aaa)).toEqual(['aaa']);
  });

  it(`lists at most ${LIMITS.maxMatchesReported} matches`, async () => {
    const buf = await scratch(d, Array.from({ length: 20 }, () => 'dup'));
    const outcome = await d.call('find_and_replace', { buffer: buf, old_text: 'dup', new_text: 'x' });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'MULTIPLE_MATCHES', match_count: 20 } });
    expect(!outcome.ok && outcome.error.matches).toHaveLength(LIMITS.maxMatchesReported);
  });

  it('makes each of two edits in a row its own undo step, and leaves the file on disk alone', async () => {
    const buf = await d.bufnr('edit.txt');
    const t = await d.tick(buf);
    await d.ok('write_buffer', { buffer: buf, text: 'a1\nb1', expected_changedtick: t });
    await d.ok('find_and_replace', { buffer: buf, old_text: 'a1', new_text: 'a2\nextra' });
    await d.ok('find_and_replace', { buffer: 'edit.txt', old_text: 'b1', new_text: 'b2' });
    expect(await d.lines(buf)).toEqual(['a2', 'extra', 'b2']);
    expect(readFileSync(join(d.cwd, 'edit.txt'), 'utf8')).toBe('on disk\n');
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual(['a2', 'extra', 'b1']);
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual(['a1', 'b1']);
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual(['on disk']);
  });

  it('keeps its undo step apart from a change made right after it', async () => {
    const buf = await scratch(d, ['mine', 'theirs']);
    await d.setLine(buf, 2, 'theirs, before');
    await d.ok('find_and_replace', { buffer: buf, old_text: 'mine', new_text: 'MINE' });
    await d.setLine(buf, 2, 'THEIRS');
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual(['MINE', 'theirs, before']);
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual(['mine', 'theirs, before']);
  });

  it("refuses every edit of a buffer whose 'modifiable' is off, naming it, with a hint, changing nothing", async () => {
    const ro = await scratch(d, ['locked', 'two']);
    await d.expr(`setbufline(${ro}, 1, 'locked')`);
    await d.command('let &undolevels = &undolevels');
    await d.expr(`setbufline(${ro}, 2, 'second')`);
    await d.expr(`setbufvar(${ro}, '&modifiable', 0)`);
    const tick = await d.tick(ro);
    const edits: [string, Record<string, unknown>][] = [
      ['find_and_replace', { old_text: 'locked', new_text: 'x' }],
      ['write_buffer', { text: 'x\n' }],
      ['apply_diff', { diff: '@@ -1 +1 @@\n-locked\n+x\n' }],
      ['substitute', { pattern: 'locked', replacement: 'x' }],
      ['undo', {}],
    ];
    for (const [tool, args] of edits) {
      expect(await d.call(tool, { buffer: ro, expected_changedtick: tick, ...args }), tool).toEqual({
        ok: false,
        error: {
          code: 'EDITOR_ERROR',
          message: `Buffer ${ro} is not modifiable ('modifiable' is off). Nothing was changed.`,
          hint: expect.stringContaining(`call setbufvar(${ro}, '&modifiable', 1)`),
        },
      });
    }
    expect(await d.lines(ro)).toEqual(['locked', 'second']);
    expect(await d.tick(ro)).toBe(tick);
    expect(await d.call('find_and_replace', { buffer: 'nope.txt', old_text: 'a', new_text: 'b' })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
  });

  it('write_buffer refusals change nothing; a write leaves the buffer modified, unsaved', async () => {
    const buf = await scratch(d, ['original 1', 'original 2']);
    const tick = await d.tick(buf);
    expect(await d.call('write_buffer', { buffer: buf, text: 'clobber' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', current_changedtick: tick } });
    expect(await d.call('write_buffer', { buffer: buf, text: 'clobber', expected_changedtick: tick + 5 })).toMatchObject({ ok: false, error: { code: 'STALE_CHANGEDTICK', current_changedtick: tick } });
    expect(await d.lines(buf)).toEqual(['original 1', 'original 2']);
    expect(await d.tick(buf)).toBe(tick);
    const data = await d.ok('write_buffer', { buffer: buf, text: 'x\n', expected_changedtick: tick });
    expect(data).toMatchObject({ created: false, total_lines: 1 });
    expect(data.changedtick).toBe(await d.tick(buf));
    expect(await d.expr(`getbufvar(${buf}, '&modified')`)).toBe(1);
    expect(await d.call('write_buffer', { buffer: 4242, text: 'x' })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND' } });
  });

  it('write_buffer on a file with no buffer: loads it, its tick in the refusal, then writes it unsaved; a created buffer can be emptied', async () => {
    const outcome = await d.call('write_buffer', { buffer: 'later.txt', text: 'replaced' });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', current_changedtick: expect.any(Number) } });
    const read = await d.ok('read_buffer', { buffer: 'later.txt' });
    expect(read.lines).toEqual(['not loaded yet']);
    expect(!outcome.ok && outcome.error.current_changedtick).toBe(read.changedtick);
    expect(await d.ok('write_buffer', { buffer: 'later.txt', text: 'replaced', expected_changedtick: read.changedtick })).toMatchObject({ created: false, total_lines: 1 });
    expect(readFileSync(join(d.cwd, 'later.txt'), 'utf8')).toBe('not loaded yet\n');
    const created = await d.ok('write_buffer', { buffer: 'new/empty-later.md', text: 'body' });
    expect(await d.ok('write_buffer', { buffer: created.buf as number, text: '', expected_changedtick: created.changedtick })).toMatchObject({ created: false, total_lines: 1 });
    expect(await d.lines(created.buf as number)).toEqual(['']);
  });

  it('writes multi-megabyte text intact (on Vim: sent in pieces, emoji at piece boundaries)', async () => {
    const text = Array.from({ length: 30_000 }, (_, i) => `${i} 🎉日本語 héllo ${'😀'.repeat(i % 7)}`).join('\n');
    expect(text.length).toBeGreaterThan(VIM_CHUNK_UNITS * 20);
    const { buf, changedtick } = (await d.ok('read_buffer', { buffer: 'ten.txt' })) as { buf: number; changedtick: number };
    expect(await d.ok('write_buffer', { buffer: buf, text, expected_changedtick: changedtick })).toMatchObject({ total_lines: 30_000 });
    expect((await d.lines(buf)).join('\n')).toBe(text);
  });
});

describe.each(DRIVERS)('reading text that is not UTF-8 on %s', (_kind, start) => {
  let d: Driver;
  beforeAll(async () => {
    d = await start({ files: {}, open: [] });
    // "café" in Latin-1, read as UTF-8 keeping the bad byte as it is.
    writeFileSync(join(d.cwd, 'bad.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x6f, 0x6b, 0x0a]));
    await d.command('edit ++enc=utf-8 ++bad=keep bad.txt');
  });
  afterAll(() => d.stop());

  it('shows each byte that is not UTF-8 as U+FFFD', async () => {
    expect(await d.expr('strlen(getline(1))')).toBe(4);
    expect((await d.ok('read_buffer')).lines).toEqual(['caf\ufffd', 'ok']);
    expect((await d.ok('read_buffer', { start_line: 2 })).lines).toEqual(['ok']);
    const brief = await d.ok('get_state_brief');
    expect((brief.windows as { context: { lines: string[] } }[])[0]?.context.lines).toEqual(['caf\ufffd', 'ok']);
  });

  it('keeps a page within the byte cap counting each bad byte as the U+FFFD (3 bytes) it is read as', async () => {
    // 1,000 lines of 200 bytes that are not UTF-8: 200 KB in the buffer, 600 KB once read.
    writeFileSync(join(d.cwd, 'bad-page.txt'), Buffer.concat(Array.from({ length: 1_000 }, () => Buffer.from([...Array<number>(200).fill(0xe9), 0x0a]))));
    await d.command('edit ++enc=utf-8 ++bad=keep bad-page.txt');
    let from: number | null = 1;
    let read = 0;
    while (from !== null) {
      const page = await d.ok('read_buffer', { start_line: from });
      expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(LIMITS.maxResultBytes);
      const lines = page.lines as string[];
      expect(lines.length).toBeGreaterThan(0);
      expect(new Set(lines)).toEqual(new Set(['\ufffd'.repeat(200)]));
      read += lines.length;
      from = page.next_start_line as number | null;
    }
    expect(read).toBe(1_000);
  });
});

// Vim in Normal mode here: only then does it take typed keys, and so have an insert going on.
describe.each(DRIVERS)('find_and_replace while the user types, on %s', (_kind, start) => {
  let d: Driver;
  let buf: number;
  const until = (wanted: string): Promise<boolean> =>
    waitFor(async () => ((await d.expr<string>('mode()')) === wanted ? true : undefined), 5_000, `mode ${JSON.stringify(wanted)}`);
  /** Gives the buffer `lines` as an undo step of its own, in Normal mode. */
  const reset = async (lines: string[]): Promise<void> => {
    await d.type('\x1b');
    await until('n');
    await replaceLines(d, buf, lines);
    await d.command('let &undolevels = &undolevels');
  };
  beforeAll(async () => {
    d = await start({ files: { 'typing.txt': 'x\n' }, open: ['typing.txt'], vimNormal: true });
    buf = await d.bufnr('typing.txt');
  });
  afterAll(() => d.stop());

  it('keeps its undo step apart from a change another client makes right after, mid-insert', async () => {
    await reset(['mine', 'theirs']);
    await d.type('i');
    await until('i');
    await d.ok('find_and_replace', { old_text: 'mine', new_text: 'MINE' });
    await d.setLine(buf, 2, 'THEIRS');
    await d.type('\x1b');
    await until('n');
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual(['MINE', 'theirs']);
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual(['mine', 'theirs']);
  });

  it("keeps the user's insert on its text when an edit lands before it on the same line", async () => {
    await reset(['l1', 'l2', 'l3']);
    await d.type('3GAqq');
    await until('i');
    await waitFor(async () => ((await d.lines(buf))[2] === 'l3qq' ? true : undefined), 5_000, 'the typed text');
    await d.ok('find_and_replace', { old_text: 'l3', new_text: 'L3LONG' });
    await d.type('ZZ\x1b');
    await until('n');
    expect(await d.lines(buf)).toEqual(['l1', 'l2', 'L3LONGqqZZ']);
  });

  it('is one undo step of its own while the user is mid-insert, their typing before and after it steps of theirs', async () => {
    await reset(['typed:', 'target']);
    await d.type('A before');
    await until('i');
    await waitFor(async () => ((await d.lines(buf))[0] === 'typed: before' ? true : undefined), 5_000, 'the typed text');
    await d.ok('find_and_replace', { old_text: 'target', new_text: 'edited' });
    // A line break too: Insert mode had saved the line for undo when the insert began, and must
    // save again, or undoing the edit takes the new line with it (Vim, Neovim 0.7).
    await d.type(' after\rmore\x1b');
    await until('n');
    expect(await d.lines(buf)).toEqual(['typed: before after', 'more', 'edited']);
    // Undo goes back in time, and no step holds both: the typing after the edit, exactly the edit,
    // then the typing before it.
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual(['typed: before', 'edited']);
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual(['typed: before', 'target']);
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual(['typed:', 'target']);
  });
});

describe.each(DRIVERS)('read_buffer caps on a 100k-line buffer on %s', (_kind, start) => {
  let d: Driver;
  let expected: string[];
  beforeAll(async () => {
    // Varied lengths with multi-byte characters, so that the byte cap, not the line cap, bites.
    expected = Array.from({ length: 100_000 }, (_, i) => `${i + 1} ${'é日😀x'.repeat(i % 17)}`);
    d = await start({ files: { 'big.txt': expected.join('\n') + '\n' }, open: ['big.txt'] });
  });
  afterAll(() => d.stop());

  it.each([undefined, LIMITS.readMaxLines])('pages through everything within the caps (max_lines %s)', async (maxLines) => {
    const got: string[] = [];
    let from: number | null = 1;
    let pages = 0;
    while (from !== null) {
      const page = await d.ok('read_buffer', { start_line: from, ...(maxLines ? { max_lines: maxLines } : {}) });
      const lines = page.lines as string[];
      expect(page.start_line).toBe(from);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.length).toBeLessThanOrEqual(maxLines ?? LIMITS.readDefaultLines);
      expect(pageBytes(lines)).toBeLessThanOrEqual(LIMITS.maxResultBytes);
      expect(page.end_line).toBe(from + lines.length - 1);
      expect(page.total_lines).toBe(100_000);
      got.push(...lines);
      from = page.next_start_line as number | null;
      expect(page.truncated).toBe(from !== null);
      pages++;
    }
    expect(got.length).toBe(expected.length);
    expect(got).toEqual(expected);
    expect(pages).toBeGreaterThan(1);
  });

  it('counts the byte cap as JSON, so that quotes and control characters cannot push a page past it', async () => {
    // Each line is 1,000 bytes of text but about 2,000 or 6,000 bytes of JSON.
    const buf = await scratch(d, Array.from({ length: 300 }, (_, i) => (i % 2 === 1 ? '"' : '\u0001').repeat(1000)));
    const page = await d.ok('read_buffer', { buffer: buf });
    expect((page.lines as string[]).slice(0, 2)).toEqual(['\u0001'.repeat(1000), '"'.repeat(1000)]);
    expect(page.truncated).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(LIMITS.maxResultBytes);
    expect(page.next_start_line).toBe((page.lines as string[]).length + 1);
  });

  // Neovim sizes whole chunks of lines at once (256, then 512, ... lines: lua/read_buffer.lua) and
  // only the chunk that reaches the cap line by line: a page ending exactly at the cap, at a
  // chunk's end or inside one, holds that last line, and one byte more leaves it for the next page.
  it.each([256, 300, 768])('fills a page to the byte cap exactly when it ends at line %i', async (last) => {
    const size = (line: string): number => Buffer.byteLength(JSON.stringify(line)) + 1;
    const lineLength = Math.floor(LIST_BUDGET_BYTES / last) - 3;
    const lines = Array.from({ length: last - 1 }, (_, i) => `${i}`.padEnd(lineLength, 'a'));
    const fill = LIST_BUDGET_BYTES - lines.reduce((n, l) => n + size(l), 0) - 3;
    const after = Array.from({ length: 40 }, () => 'more');
    const exact = await scratch(d, [...lines, 'z'.repeat(fill), ...after]);
    expect(lines.reduce((n, l) => n + size(l), size('z'.repeat(fill)))).toBe(LIST_BUDGET_BYTES);
    expect(await d.ok('read_buffer', { buffer: exact })).toMatchObject({ end_line: last, next_start_line: last + 1 });
    const over = await scratch(d, [...lines, 'z'.repeat(fill + 1), ...after]);
    expect(await d.ok('read_buffer', { buffer: over })).toMatchObject({ end_line: last - 1, next_start_line: last });
  });

  it('refuses a single line longer than the byte cap, pointing past it', async () => {
    const buf = await scratch(d, ['short', 'ü'.repeat(LIMITS.maxResultBytes), 'after']);
    expect(await d.ok('read_buffer', { buffer: buf, end_line: 3 })).toMatchObject({ lines: ['short'], truncated: true, next_start_line: 2 });
    expect(await d.call('read_buffer', { buffer: buf, start_line: 2 })).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', line: 2, hint: expect.stringContaining('start_line 3') } });
    expect(await d.ok('read_buffer', { buffer: buf, start_line: 3 })).toMatchObject({ lines: ['after'] });
  });
});
