// lsp_definition, lsp_references, lsp_hover and lsp_symbols behave the same on Neovim (vim.lsp,
// the servers started by the test's init.lua) and on Vim (ALE, or vim-lsp), through the editor adapters, against
// the real typescript-language-server, pyright, pylsp and clangd on the fixture projects
// (test/fixtures/lsp, helpers/lsp.ts): positions after multi-byte and astral characters, in and out;
// a definition in another file with its context; references across files, grouped, sorted and paged;
// hover with its signature; a file's symbol tree and a project query; each kind of definition a
// server lacks answered UNSUPPORTED; a position past the end refused.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFINITION_KINDS } from '../../../../protocol/index.ts';
import type { Driver } from '../../../helpers/editors.ts';
import { charsOf, clientOf, columnOf, LSP_EDITORS, lspDriver, pathIn, SERVERS, type ServerCase } from '../../../helpers/lsp.ts';

interface Reference {
  line: number;
  col: number;
  end_line: number;
  end_col: number;
  text: string;
}
interface FileReferences {
  path: string;
  references: Reference[];
}
interface SymbolItem {
  name: string;
  kind: string;
  depth: number;
  container: string | null;
  line: number;
  path: string;
}

const METHODS = { definition: 'textDocument/definition', declaration: 'textDocument/declaration', type_definition: 'textDocument/typeDefinition', implementation: 'textDocument/implementation' };

describe.each(LSP_EDITORS)('code navigation on %s', (editor) => {
  const client = clientOf(editor);
  describe.each(SERVERS)('with $name', (server: ServerCase) => {
    let d: Driver;
    const lines = (file: string): string[] => readFileSync(pathIn(d, file), 'utf8').split('\n');
    const at = (place: { file: string; line: number; col: number }) => ({ buffer: place.file, line: place.line, col: place.col });

    beforeAll(async () => {
      d = await lspDriver(client, server);
    }, 90_000);
    afterAll(() => d?.stop());

    it('finds the definition of a member used after é😀😀 in another file, with its context', async () => {
      const def = server.memberDefinition;
      const r = await d.ok('lsp_definition', at(server.member));
      expect(r).toMatchObject({ server: server.name, total: 1, truncated: false, cursor: null, withheld: 0 });
      const [loc] = r.locations as { path: string; line: number; col: number; end_line: number; end_col: number; context: unknown }[];
      expect(loc).toMatchObject({ path: pathIn(d, def.file), line: def.line, col: def.col, end_line: def.line, end_col: def.end_col });
      const file = lines(def.file);
      expect(charsOf(file[def.line - 1] ?? '', def.col, def.end_col)).toBe(server.memberName);
      expect(loc?.context).toEqual({ start_line: def.line - 2, lines: file.slice(def.line - 3, def.line + 2) });
    });

    it('answers UNSUPPORTED, naming the method, for each kind of definition the server lacks', async () => {
      for (const kind of DEFINITION_KINDS) {
        const r = await d.call('lsp_definition', { ...at(server.member), kind });
        if ((server.lacks as string[]).includes(kind)) {
          expect(r, kind).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', reason: 'method', message: expect.stringContaining(METHODS[kind]) } });
        } else {
          expect(r.ok, `${kind}: ${JSON.stringify(r)}`).toBe(true);
        }
      }
    });

    it('finds every reference across files, grouped by file and sorted, each range on the name', async () => {
      const r = await d.ok('lsp_references', at(server.call));
      const files = r.files as FileReferences[];
      expect(r).toMatchObject({ server: server.name, total: 4, truncated: false, cursor: null, withheld: 0 });
      expect(Object.fromEntries(files.map((f) => [f.path.slice(d.cwd.length + 1), f.references.length]))).toEqual(server.references);
      expect(files.map((f) => f.path)).toEqual([...files.map((f) => f.path)].sort());
      for (const f of files) {
        const file = lines(f.path.slice(d.cwd.length + 1));
        expect(f.references.map((ref) => ref.line)).toEqual([...f.references.map((ref) => ref.line)].sort((a, b) => a - b));
        for (const ref of f.references) {
          const text = file[ref.line - 1] ?? '';
          expect(ref.text).toBe(text);
          // The name's character column in its line (each line of the fixture names it once).
          const col = [...text.slice(0, text.indexOf(server.callName))].length + 1;
          expect(ref, `${f.path}:${ref.line}`).toMatchObject({ col: columnOf(server, text, col), end_line: ref.line });
          expect(ref.end_col - ref.col).toBe(server.callName.length);
        }
      }
    });

    it('pages references with max_results and the cursor, the pages making up the whole list', async () => {
      const whole = ((await d.ok('lsp_references', at(server.call))).files as FileReferences[]).flatMap((f) => f.references.map((ref) => ({ path: f.path, ...ref })));
      const paged: typeof whole = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const r = await d.ok('lsp_references', { ...at(server.call), max_results: 1, ...(cursor === undefined ? {} : { cursor }) });
        expect(r.total).toBe(4);
        paged.push(...(r.files as FileReferences[]).flatMap((f) => f.references.map((ref) => ({ path: f.path, ...ref }))));
        expect(r.truncated).toBe(r.cursor !== null);
        if (r.cursor === null) break;
        cursor = r.cursor as string;
      }
      expect(paged).toEqual(whole);
    });

    it('gives the hover text and signature of a function called after é😀😀', async () => {
      const h = await d.ok('lsp_hover', at(server.call));
      // ALE asks for plain text; only typescript-language-server answers markdown all the same.
      expect(h).toMatchObject({ server: server.name, format: client !== 'ale' || server.name === 'tsls' ? 'markdown' : 'plaintext', text_truncated: false });
      expect(h.text).toMatch(server.signature);
      expect(h.text).toContain('Sum of the areas');
      if (h.format === 'markdown') expect(h.signature).toMatch(server.signature);
      else expect(h.signature).toBe(String(h.text).split('\n').find((l) => l.trim() !== '')?.trim());
      const range = h.range as { line: number; col: number; end_col: number } | null;
      if (range !== null) {
        const text = lines(server.call.file)[range.line - 1] ?? '';
        expect(charsOf(text, range.col, range.end_col)).toBe(server.callName);
      }
    });

    it("lists a file's symbols as a tree in document order, and pages it", async () => {
      await d.ok('open_file', { path: server.tree.file });
      const r = await d.ok('lsp_symbols', { buffer: server.tree.file });
      const symbols = r.symbols as SymbolItem[];
      expect(r).toMatchObject({ server: server.name, scope: 'document', total: symbols.length, truncated: false, cursor: null, withheld: 0 });
      expect(symbols.filter((s) => s.depth === 0).map((s) => s.name)).toEqual(server.tree.top);
      const parent = symbols.findIndex((s) => s.name === server.tree.parent && s.depth === 0);
      const child = symbols.findIndex((s, i) => i > parent && s.name === server.tree.child);
      expect(symbols[child]).toMatchObject({ depth: 1, container: server.tree.parent, path: pathIn(d, server.tree.file) });
      expect(symbols.map((s) => s.line)).toEqual([...symbols.map((s) => s.line)].sort((a, b) => a - b));
      const first = await d.ok('lsp_symbols', { buffer: server.tree.file, max_results: 2 });
      expect(first).toMatchObject({ truncated: true, cursor: '2', total: symbols.length });
      const rest = await d.ok('lsp_symbols', { buffer: server.tree.file, cursor: '2' });
      expect([...(first.symbols as SymbolItem[]), ...(rest.symbols as SymbolItem[])]).toEqual(symbols);
    });

    it("searches the project's symbols, or says the server cannot", async () => {
      const r = await d.call('lsp_symbols', { buffer: server.call.file, query: server.query });
      if (server.querySymbol === null) {
        expect(r).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', message: expect.stringContaining('workspace/symbol') } });
        return;
      }
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      const found = (r.data.symbols as SymbolItem[]).find((s) => s.name === server.querySymbol);
      expect(r.data.scope).toBe('workspace');
      expect(found).toMatchObject({ kind: 'function', depth: 0, path: expect.stringContaining(d.cwd) });
    });

    it('refuses a position past the end of the buffer', async () => {
      const r = await d.call('lsp_hover', { buffer: server.call.file, line: 999, col: 1 });
      expect(r).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('999') } });
    });
  });
});
