// A NUL byte in a buffer line, the same cases on a real Neovim and on a real Vim: every tool that
// reads a line's text gives U+0000 for it, every tool that writes one puts a NUL byte back, and the
// byte caps count it as the agent sends it ("\u0000"). Vim holds a NUL as a NL in its strings
// (:h NL-used-for-Nul), so the buffer's own view is checked with getbufline() in both editors,
// where "\n" inside a line can only be a NUL, and with the bytes save_buffer writes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_BUDGET_BYTES } from '../../../../agent/editors/tools/budget.ts';
import { VIM_CHUNK_UNITS } from '../../../../agent/editors/vim/staging.ts';
import { LIMITS } from '../../../../protocol/index.ts';
import { DRIVERS, replaceLines, type Driver } from '../../../helpers/editors.ts';
import { clientOf, fixtureFiles, LSP_EDITORS, lspDriver, SERVERS, type ServerCase } from '../../../helpers/lsp.ts';

describe.each(DRIVERS)('a NUL in a line on %s', (_kind, start) => {
  let d: Driver;
  let buf: number;
  /** The buffer's lines as the editor's own Vimscript holds them: each NUL a "\n". */
  const held = (): Promise<string[]> => d.expr(`getbufline(${buf}, 1, '$')`);
  /** Replaces the buffer's text as the user would; each "\n" of `lines` is a NUL. Resolves with its changedtick. */
  const reset = (lines: string[]): Promise<number> => replaceLines(d, buf, lines);
  beforeAll(async () => {
    d = await start({ files: { 'nul.txt': 'a\0b\nplain\n\0\n', 'world.txt': 'hello world\n' }, open: ['nul.txt'] });
    buf = await d.bufnr('nul.txt');
    await d.command('badd world.txt');
  });
  afterAll(() => d.stop());

  it('read_buffer gives U+0000 for each NUL, a line per line', async () => {
    await d.command(`buffer ${buf} | edit!`);
    expect(await d.ok('read_buffer', { buffer: buf })).toMatchObject({ total_lines: 3, lines: ['a\0b', 'plain', '\0'] });
  });

  it('read_buffer keeps a page of NULs within the byte cap, each counted as the 6 bytes of "\\u0000"', async () => {
    const line = '\n'.repeat(1000);
    const t = await reset(Array.from({ length: 100 }, () => line));
    const page = await d.ok('read_buffer', { buffer: buf });
    const lines = page.lines as string[];
    expect(page).toMatchObject({ changedtick: t, truncated: true });
    expect(new Set(lines)).toEqual(new Set(['\0'.repeat(1000)]));
    expect(lines.reduce((n, l) => n + Buffer.byteLength(JSON.stringify(l)) + 1, 0)).toBeLessThanOrEqual(LIST_BUDGET_BYTES);
    expect(lines.length).toBe(Math.floor(LIST_BUDGET_BYTES / 6003));
    expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(LIMITS.maxResultBytes);
  });

  it('get_state_brief and get_state show the context lines with U+0000, the cursor counting a NUL as one character', async () => {
    await reset(['a\nb', 'x\ny']);
    await d.cursor('nul.txt', 2, 2);
    for (const tool of ['get_state_brief', 'get_state']) {
      const window = ((await d.ok(tool)).windows as { cursor: unknown; context: { lines: string[] } }[])[0];
      expect(window).toMatchObject({ cursor: { line: 2, col: 3 }, context: { start_line: 1, lines: ['a\0b', 'x\0y'] } });
    }
  });

  it('grep_buffers gives the line with U+0000, searches past it, matches a NUL with \\%x00 and refuses one in its pattern', async () => {
    await reset(['bin\nary hello']);
    const world = await d.bufnr('world.txt');
    expect(await d.expr(`bufload(${world})`)).toBe(0);
    expect((await d.ok('grep_buffers', { pattern: 'hello', buffers: [buf, world] })).hits).toEqual([
      { buf, path: join(d.cwd, 'nul.txt'), line: 1, col: 9, end_col: 14, text: 'bin\0ary hello', text_start_col: 1, trimmed: false },
      { buf: world, path: join(d.cwd, 'world.txt'), line: 1, col: 1, end_col: 6, text: 'hello world', text_start_col: 1, trimmed: false },
    ]);
    expect((await d.ok('grep_buffers', { pattern: 'n\\%x00a', mode: 'regex', buffers: [buf] })).hits).toMatchObject([{ line: 1, col: 3, end_col: 6 }]);
    expect(await d.call('grep_buffers', { pattern: 'bin\0ary' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('\\%x00') } });
  });

  // What an editor runs, types or shows cannot hold a NUL: Vim's json_decode() drops it (a run_command
  // of "ec\0ho 1" ran "echo 1" while its prompt showed the NUL), Neovim's Lua takes it as a Blob.
  it.each([
    ['run_command', { commands: 'ec\0ho 1' }, 'a command'],
    ['run_command', { commands: ['echo 1', 'ec\0ho 2'] }, 'a command'],
    ['send_keys', { keys: 'i\0x' }, 'keys'],
    ['send_to_terminal', { text: 'ls\0 -la' }, 'text'],
    ['add_virtual_text', { line: 1, text: 'note\0' }, 'text'],
    ['lsp_rename', { line: 1, character: 1, new_name: 'a\0b' }, 'new_name'],
  ])('%s refuses a U+0000 in %j, naming it', async (tool, args, what) => {
    expect(await d.call(tool, args)).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining(`${what} must not contain a NUL character`) } });
  });

  it('run_command with a U+0000 in one of its commands runs none of them', async () => {
    expect(await d.call('run_command', { commands: ['let g:vimrelay_nul_ran = 1', 'ec\0ho 2'] })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await d.expr('get(g:, "vimrelay_nul_ran", 0)')).toBe(0);
  });

  it('write_buffer writes each U+0000 as a NUL byte, within its line, and save_buffer writes it to the file', async () => {
    const t = await d.tick(buf);
    expect(await d.ok('write_buffer', { buffer: buf, text: 'x\0y\n\0\nz\0\n', expected_changedtick: t })).toMatchObject({ total_lines: 3 });
    expect(await held()).toEqual(['x\ny', '\n', 'z\n']);
    expect((await d.ok('read_buffer', { buffer: buf })).lines).toEqual(['x\0y', '\0', 'z\0']);
    await d.ok('save_buffer', { buffer: buf, expected_changedtick: await d.tick(buf) });
    expect(readFileSync(join(d.cwd, 'nul.txt'))).toEqual(Buffer.from('x\0y\n\0\nz\0\n', 'latin1'));
  });

  it('write_buffer sends a long text in pieces, its NULs intact in a line longer than a piece', async () => {
    const long = `${'日\0'.repeat(VIM_CHUNK_UNITS)}end`;
    const text = ['\0 first', long, 'last \0'].join('\n');
    await d.ok('write_buffer', { buffer: buf, text, expected_changedtick: await d.tick(buf) });
    expect(await held()).toEqual(['\n first', long.replaceAll('\0', '\n'), 'last \n']);
  });

  it('find_and_replace tells a U+0000 in old_text from a line break, and writes one in new_text as a NUL', async () => {
    let t = await reset(['a\nb', 'a', 'b']);
    // "a\nb" is lines 2 and 3, never the NUL of line 1.
    expect(await d.ok('find_and_replace', { buffer: buf, old_text: 'a\nb', new_text: 'X\0Y', expected_changedtick: t })).toMatchObject({
      start: { line: 2, col: 1 },
      end: { line: 2, col: 4 },
    });
    expect(await held()).toEqual(['a\nb', 'X\nY']);
    t = await d.tick(buf);
    expect(await d.ok('find_and_replace', { buffer: buf, old_text: 'a\0b', new_text: 'c\0', expected_changedtick: t })).toMatchObject({
      start: { line: 1, col: 1 },
      end: { line: 1, col: 3 },
    });
    expect(await held()).toEqual(['c\n', 'X\nY']);
    t = await d.tick(buf);
    expect(await d.call('find_and_replace', { buffer: buf, old_text: '\0', new_text: '', expected_changedtick: t })).toMatchObject({
      ok: false,
      error: { code: 'MULTIPLE_MATCHES', match_count: 2, matches: [{ line: 1, col: 2 }, { line: 2, col: 2 }] },
    });
    expect(await d.call('find_and_replace', { buffer: buf, old_text: '\0\nX', new_text: '', expected_changedtick: t })).toMatchObject({
      ok: true,
      data: { start: { line: 1, col: 2 }, end: { line: 1, col: 2 } },
    });
    expect(await held()).toEqual(['c\nY']);
  });

  it('apply_diff matches and writes lines holding U+0000, and shows them so when a hunk does not match', async () => {
    let t = await reset(['a\nb', 'old']);
    const diff = '--- a/nul.txt\n+++ b/nul.txt\n@@ -1,2 +1,2 @@\n a\0b\n-old\n+n\0ew\n';
    expect(await d.ok('apply_diff', { buffer: buf, diff, expected_changedtick: t })).toMatchObject({ hunks_applied: 1, lines_added: 1, lines_removed: 1 });
    expect(await held()).toEqual(['a\nb', 'n\new']);
    t = await d.tick(buf);
    expect(await d.call('apply_diff', { buffer: buf, diff, expected_changedtick: t })).toMatchObject({
      ok: false,
      error: { code: 'DIFF_MISMATCH', buffer_lines: { start_line: 1, lines: ['a\0b', 'n\0ew'] }, line: 2, expected: 'old', actual: 'n\0ew' },
    });
  });

  it('substitute matches a NUL with \\%x00 and keeps the NULs it does not replace', async () => {
    await reset(['a\nb\nc', 'b']);
    expect(await d.ok('substitute', { buffer: buf, pattern: 'b', replacement: 'B' })).toMatchObject({ count: 2 });
    expect((await d.ok('read_buffer', { buffer: buf })).lines).toEqual(['a\0B\0c', 'B']);
    expect(await d.ok('substitute', { buffer: buf, pattern: '\\%x00', replacement: '-', flags: ['g'] })).toMatchObject({ count: 2 });
    expect(await held()).toEqual(['a-B-c', 'B']);
  });
});

describe.each(LSP_EDITORS)('a NUL in a line through a language server on %s', (editor) => {
  const clangd = SERVERS.find((s) => s.name === 'clangd') as ServerCase;
  const fixture = fixtureFiles(clangd.fixture);
  // In a comment on the header's declaration of total_area, the last line the server is asked
  // about in that file: Vim's language clients send the server a NUL as a line break.
  const header = (fixture['geometry.h'] ?? '').replace('int n);', 'int n); /* \0 */');
  const lines = header.split('\n');
  const declaration = lines.findIndex((l) => l.includes('\0')) + 1;
  let d: Driver;
  beforeAll(async () => {
    d = await lspDriver(clientOf(editor), clangd, { files: { 'geometry.h': header } });
  }, 90_000);
  afterAll(() => d?.stop());

  it('lsp_references and lsp_definition give the lines with U+0000', async () => {
    const at = { buffer: clangd.call.file, line: clangd.call.line, col: clangd.call.col };
    const files = (await d.ok('lsp_references', at)).files as { path: string; references: { line: number; text: string }[] }[];
    expect(files.find((f) => f.path.endsWith('/geometry.h'))?.references).toMatchObject([{ line: declaration, text: lines[declaration - 1] }]);
    const [loc] = (await d.ok('lsp_definition', { ...at, kind: 'declaration' })).locations as { line: number; context: unknown }[];
    expect(loc).toMatchObject({ line: declaration, context: { start_line: declaration - 2, lines: lines.slice(declaration - 3, declaration + 2) } });
    expect(lines[declaration - 1]).toContain('\0');
  });
});
