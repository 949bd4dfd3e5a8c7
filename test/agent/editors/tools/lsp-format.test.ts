// lsp_format on Neovim and Vim (ALE, and vim-lsp) against the real servers of helpers/lsp.ts: the
// formatting options are the buffer's own ('shiftwidth', 'expandtab': typescript-language-server
// indents with two spaces, or with a tab); a range is formatted alone (clangd's and
// typescript-language-server's edits all lie in it), previewed changing nothing, applied as one
// undo step, unsaved, and refused with a stale changedtick; pyright has no formatter (UNSUPPORTED,
// reason method), and pylsp with no formatter plugin formats nothing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Driver } from '../../../helpers/editors.ts';
import { clientOf, LSP_EDITORS, lspDriver } from '../../../helpers/lsp.ts';
import { ACTIONS_C, ACTIONS_TS, CLANGD, linesOf, PYLSP, PYRIGHT, TSLS, type FileEdits } from '../../../helpers/lsp-actions.ts';

describe.each(LSP_EDITORS)('lsp_format on %s', (editor) => {
  describe('with typescript-language-server', () => {
    let d: Driver;
    let buf = 0;
    const file = 'src/actions.ts';

    beforeAll(async () => {
      d = await lspDriver(clientOf(editor), { ...TSLS, open: [file] }, { files: { [file]: ACTIONS_TS } });
      buf = await d.bufnr(file);
    }, 90_000);
    afterAll(() => d?.stop());

    it('formats with the buffer\'s shiftwidth and expandtab', async () => {
      await d.command(`call setbufvar(${buf}, '&shiftwidth', 2) | call setbufvar(${buf}, '&expandtab', 1)`);
      const spaces = await d.ok('lsp_format', { buffer: file, start_line: 3, end_line: 6 });
      expect((spaces.files as FileEdits[])[0]?.edits).toEqual([{ line: 4, col: 1, end_line: 4, end_col: 5, old_text: '    ', new_text: '  ' }]);
      await d.command(`call setbufvar(${buf}, '&shiftwidth', 8) | call setbufvar(${buf}, '&tabstop', 8) | call setbufvar(${buf}, '&expandtab', 0)`);
      const tabs = await d.ok('lsp_format', { buffer: file, start_line: 3, end_line: 6 });
      expect((tabs.files as FileEdits[])[0]?.edits.map((e) => [e.line, e.new_text])).toEqual([
        [4, '\t'],
        [5, '\t'],
      ]);
    });

    it('previews the edits of lines changing nothing, and applies them as one undo step, unsaved', async () => {
      await d.command(`call setbufvar(${buf}, '&shiftwidth', 2) | call setbufvar(${buf}, '&expandtab', 1)`);
      const tick = await d.tick(buf);
      const preview = await d.ok('lsp_format', { buffer: file, start_line: 3, end_line: 6 });
      expect(preview).toMatchObject({ server: 'tsls', applied: false, edit_count: 1, truncated: false, files: [{ path: join(d.cwd, file), buf, changedtick: null }] });
      expect(await d.tick(buf)).toBe(tick);
      expect(await d.call('lsp_format', { buffer: file, start_line: 3, end_line: 6, apply: true, expected_changedtick: tick + 1 })).toMatchObject({
        ok: false,
        error: { code: 'STALE_CHANGEDTICK', current_changedtick: tick },
      });
      const applied = await d.ok('lsp_format', { buffer: file, start_line: 3, end_line: 6, apply: true, expected_changedtick: tick });
      expect(applied).toMatchObject({ applied: true, files: [{ buf, changedtick: await d.tick(buf) }] });
      expect((await d.lines(buf))[3]).toBe('  const c = new Circle(r);');
      expect(readFileSync(join(d.cwd, file), 'utf8')).toBe(ACTIONS_TS);
      await d.undo(buf);
      expect(await d.lines(buf)).toEqual(linesOf(ACTIONS_TS));
    });
  });

  describe('with clangd', () => {
    let d: Driver;
    const file = 'actions.c';

    beforeAll(async () => {
      d = await lspDriver(clientOf(editor), { ...CLANGD, open: [file] }, { files: { [file]: ACTIONS_C } });
    }, 90_000);
    afterAll(() => d?.stop());

    it('formats one line alone, and the whole buffer beyond it', async () => {
      const buf = await d.bufnr(file);
      const line = await d.ok('lsp_format', { buffer: file, start_line: 8, end_line: 8 });
      const edits = (line.files as FileEdits[])[0]?.edits ?? [];
      expect(edits.length).toBeGreaterThan(0);
      for (const e of edits) expect([e.line, e.end_line]).toEqual([8, 8]);
      const whole = await d.ok('lsp_format', { buffer: file });
      expect(whole.edit_count as number).toBeGreaterThan(edits.length);
      await d.ok('lsp_format', { buffer: file, start_line: 8, end_line: 8, apply: true, expected_changedtick: await d.tick(buf) });
      expect((await d.lines(buf))[7]).toBe('double twice(void) { return scaled(1); }');
      await d.undo(buf);
      expect(await d.lines(buf)).toEqual(linesOf(ACTIONS_C));
    });
  });

  describe('with pyright', () => {
    let d: Driver;

    beforeAll(async () => {
      d = await lspDriver(clientOf(editor), PYRIGHT);
    }, 90_000);
    afterAll(() => d?.stop());

    it('answers UNSUPPORTED: pyright has no formatter', async () => {
      for (const lines of [{}, { start_line: 1, end_line: 2 }]) {
        expect(await d.call('lsp_format', { buffer: PYRIGHT.call.file, ...lines })).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', reason: 'method' } });
      }
    });
  });

  describe('with pylsp', () => {
    let d: Driver;

    beforeAll(async () => {
      d = await lspDriver(clientOf(editor), PYLSP);
    }, 90_000);
    afterAll(() => d?.stop());

    it('formats nothing: pylsp formats through plugins only', async () => {
      expect(await d.ok('lsp_format', { buffer: PYLSP.call.file })).toEqual({ server: 'pylsp', applied: false, files: [], edit_count: 0, truncated: false, withheld: 0 });
    });
  });
});
