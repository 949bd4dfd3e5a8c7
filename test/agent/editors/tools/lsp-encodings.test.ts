// Every lsp_* tool speaks the position encoding its server uses with the editor's client, on
// Neovim: a real clangd, configured as nvim-lspconfig configures it (it offers UTF-8 and takes the
// encoding clangd's answer names, helpers/lsp.ts offsetEncodings), told to use UTF-8, UTF-16 or
// UTF-32 (--offset-encoding), so that no two encodings agree on a column after 'é😀😀'. Neovim
// 0.11+ negotiates the encoding with every server (LSP 3.17 positionEncoding), and many choose
// UTF-8. Vim's clients (ALE, vim-lsp) speak UTF-16 only (lsp-positions.test.ts).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Driver } from '../../../helpers/editors.ts';
import { charsOf, lspDriver, pathIn, SERVERS, type ServerCase } from '../../../helpers/lsp.ts';

const CLANGD = SERVERS.find((s) => s.name === 'clangd') as ServerCase;

interface Located {
  path: string;
  line: number;
  col: number;
  end_line: number;
  end_col: number;
}

describe.each(['utf-8', 'utf-16', 'utf-32'])('lsp_* tools with clangd speaking %s on Neovim', (encoding) => {
  let d: Driver;
  const line = (file: string, n: number): string => readFileSync(pathIn(d, file), 'utf8').split('\n')[n - 1] ?? '';
  /** The text a result's range covers, read from the file. */
  const text = (r: Located): string => charsOf(line(r.path.slice(d.cwd.length + 1), r.line), r.col, r.end_col);
  const at = (place: { file: string; line: number; col: number }) => ({ buffer: place.file, line: place.line, col: place.col });

  beforeAll(async () => {
    d = await lspDriver('nvim', { ...CLANGD, cmd: [...CLANGD.cmd, `--offset-encoding=${encoding}`] });
  }, 90_000);
  afterAll(() => d?.stop());

  it('is the encoding the client uses', async () => {
    expect(await d.expr(`luaeval('__vimrelay.latest.lsp.encoding(__vimrelay.latest.lsp.clients(1)[1])')`)).toBe(encoding);
  });

  it('finds the definition of a member used after é😀😀', async () => {
    const r = await d.ok('lsp_definition', at(CLANGD.member));
    const [loc] = r.locations as Located[];
    expect(loc).toMatchObject({ line: CLANGD.memberDefinition.line, col: CLANGD.memberDefinition.col, end_col: CLANGD.memberDefinition.end_col });
    expect(text(loc as Located)).toBe(CLANGD.memberName);
  });

  it('finds each reference of a function called after é😀😀, on its name', async () => {
    const r = await d.ok('lsp_references', at(CLANGD.call));
    const refs = (r.files as { path: string; references: Omit<Located, 'path'>[] }[]).flatMap((f) => f.references.map((ref) => ({ path: f.path, ...ref })));
    expect(refs).toHaveLength(Object.values(CLANGD.references).reduce((a, b) => a + b, 0));
    for (const ref of refs) expect(text(ref), `${ref.path}:${ref.line}:${ref.col}`).toBe(CLANGD.callName);
  });

  it('gives the hover range on the name', async () => {
    const h = await d.ok('lsp_hover', at(CLANGD.call));
    const range = h.range as Omit<Located, 'path'> | null;
    if (range !== null) expect(text({ path: pathIn(d, CLANGD.call.file), ...range })).toBe(CLANGD.callName);
  });

  it('previews a rename on the old name after é😀😀', async () => {
    const r = await d.ok('lsp_rename', { ...at(CLANGD.rename), new_name: CLANGD.renameTo });
    const edits = (r.files as { path: string; edits: Omit<Located, 'path'>[] }[]).flatMap((f) => f.edits.map((e) => ({ path: f.path, ...e })));
    expect(edits.length).toBeGreaterThan(0);
    for (const e of edits) expect(text(e), `${e.path}:${e.line}:${e.col}`).toBe(CLANGD.renameFrom);
    expect(edits).toContainEqual(expect.objectContaining({ path: pathIn(d, CLANGD.rename.file), line: CLANGD.rename.line, col: CLANGD.rename.col }));
  });
});
