// lsp_calls and lsp_types on Neovim and Vim (ALE, and vim-lsp) against the real servers of
// helpers/lsp.ts, on their fixture projects: pyright names the callers of a function and what it
// calls, each with the places of the calls (after é😀😀 on one line), sorted and paged with the
// cursor; clangd names callers but not callees (UNSUPPORTED, reason method: clangd 14 has no
// outgoing calls); pylsp has no call hierarchy; and no server here has a type hierarchy of LSP 3.17
// (clangd 14's own extension is no prepareTypeHierarchy): UNSUPPORTED, reason method.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Driver } from '../../../helpers/editors.ts';
import { clientOf, LSP_EDITORS, lspDriver } from '../../../helpers/lsp.ts';
import { CLANGD, PYLSP, PYRIGHT } from '../../../helpers/lsp-actions.ts';

interface Call {
  name: string;
  kind: string;
  path: string;
  line: number;
  col: number;
  sites: { line: number; col: number }[];
}

/** The order the tools promise: by path (byte order), then line, then column. */
function byPlace(x: Call, y: Call): number {
  if (x.path !== y.path) return Buffer.compare(Buffer.from(x.path), Buffer.from(y.path));
  return x.line - y.line || x.col - y.col;
}

describe.each(LSP_EDITORS)('lsp_calls and lsp_types on %s', (editor) => {
  describe('with pyright', () => {
    let d: Driver;
    // The call of total_area after é😀😀 in main.py: the function is defined in geometry.py.
    const of = { buffer: PYRIGHT.call.file, line: PYRIGHT.call.line, col: PYRIGHT.call.col };

    beforeAll(async () => {
      d = await lspDriver(clientOf(editor), PYRIGHT);
    }, 90_000);
    afterAll(() => d?.stop());

    it('names the callers of a function, with the places of the calls', async () => {
      const r = await d.ok('lsp_calls', of);
      expect(r).toMatchObject({
        server: 'pyright',
        of: { name: 'total_area', kind: 'function', path: join(d.cwd, 'shapes/geometry.py'), line: 15, col: 5 },
        total: 1,
        truncated: false,
        cursor: null,
        withheld: 0,
      });
      // Both calls of main.py's module body, the first after é😀😀 on its line.
      expect(r.calls).toEqual([
        expect.objectContaining({ kind: 'module', path: join(d.cwd, 'shapes/main.py'), sites: [{ line: 4, col: 20 }, { line: 5, col: 12 }] }),
      ]);
    });

    it('names the functions it calls, page by page', async () => {
      // Circle.area, and the three overloads of the builtin sum (in pyright's own typeshed).
      const first = await d.ok('lsp_calls', { ...of, direction: 'outgoing', max_results: 3 });
      expect(first).toMatchObject({ total: 4, truncated: true, cursor: '3' });
      const rest = await d.ok('lsp_calls', { ...of, direction: 'outgoing', max_results: 3, cursor: first.cursor });
      expect(rest).toMatchObject({ total: 4, truncated: false, cursor: null });
      const calls = [...(first.calls as Call[]), ...(rest.calls as Call[])];
      // Sorted by place: path, line, column. Where typeshed's sum sorts against the project's own
      // file depends on where pyright is installed, so the order is checked, not spelled out.
      expect(calls).toEqual([...calls].sort(byPlace));
      expect(calls.map((c) => c.name).sort()).toEqual(['area', 'sum', 'sum', 'sum']);
      expect(calls.find((c) => c.name === 'area')).toMatchObject({ kind: 'method', path: join(d.cwd, 'shapes/geometry.py'), line: 11, col: 9, sites: [{ line: 17, col: 18 }] });
      for (const sum of calls.filter((c) => c.name === 'sum')) expect(sum).toMatchObject({ kind: 'function', sites: [{ line: 17, col: 12 }] });
    });

    it('answers NO_MATCH where no function is', async () => {
      expect(await d.call('lsp_calls', { buffer: PYRIGHT.call.file, line: 2, col: 1 })).toMatchObject({ ok: false, error: { code: 'NO_MATCH' } });
    });

    it('has no type hierarchy', async () => {
      expect(await d.call('lsp_types', { buffer: PYRIGHT.call.file, line: 1, col: 29 })).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', reason: 'method' } });
    });
  });

  describe('with clangd', () => {
    let d: Driver;
    const of = { buffer: 'geometry.c', line: 3, col: 8 };

    beforeAll(async () => {
      d = await lspDriver(clientOf(editor), CLANGD);
    }, 90_000);
    afterAll(() => d?.stop());

    it('names the callers of a function; not its callees, nor a type hierarchy', async () => {
      const r = await d.ok('lsp_calls', of);
      expect(r).toMatchObject({ server: 'clangd', of: { name: 'total_area', kind: 'function' }, total: 1 });
      expect(r.calls).toEqual([expect.objectContaining({ name: 'main', kind: 'function', path: join(d.cwd, 'main.c'), line: 4, col: 5, sites: [{ line: 6, col: 41 }, { line: 7, col: 34 }] })]);
      expect(await d.call('lsp_calls', { ...of, direction: 'outgoing' })).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', reason: 'method' } });
      expect(await d.call('lsp_types', { buffer: 'geometry.h', line: 5, col: 8 })).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', reason: 'method' } });
    });
  });

  describe('with pylsp', () => {
    let d: Driver;

    beforeAll(async () => {
      d = await lspDriver(clientOf(editor), PYLSP);
    }, 90_000);
    afterAll(() => d?.stop());

    it('has neither hierarchy', async () => {
      const at = { buffer: PYLSP.call.file, line: PYLSP.call.line, col: PYLSP.call.col };
      for (const tool of ['lsp_calls', 'lsp_types']) expect(await d.call(tool, at), tool).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', reason: 'method' } });
    });
  });
});
