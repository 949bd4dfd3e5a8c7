// The position conversions of the lsp_* tools, inside each editor: between 1-based character columns
// (code points) and LSP offsets, for every column of a line with a multi-byte and two astral
// characters, where no two encodings agree: UTF-16 on both editors (lua/lsp.lua, and
// autoload/vimrelay/util/lsp.vim: neither ALE nor vim-lsp negotiates more), UTF-8 and UTF-32 on Neovim
// (what a client may negotiate). An offset inside a character is that character; past the end, the
// end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVERS, type Driver } from '../../../helpers/editors.ts';

const LINE = "const tag = 'é😀😀'; export const big = totalArea(shapes);";
const CHARS = [...LINE];
const ENCODINGS = { 'utf-8': (s: string) => Buffer.byteLength(s), 'utf-16': (s: string) => s.length, 'utf-32': (s: string) => [...s].length };

describe.each(DRIVERS)('LSP positions on %s', (editor, start) => {
  let d: Driver;
  beforeAll(async () => {
    d = await start({ files: { 'a.txt': 'x\n' }, open: ['a.txt'] });
  });
  afterAll(() => d?.stop());

  /** units_of, byte_of and col_of as the editor computes them. */
  const convert = (fn: 'units_of' | 'byte_of' | 'col_of', arg: number, encoding: string): Promise<number> =>
    d.kind === 'nvim'
      ? d.expr(`luaeval('__vimrelay.latest.lsp.${fn}(_A[1], _A[2], _A[3])', [${JSON.stringify(LINE)}, ${arg}, '${encoding}'])`)
      : d.expr(`vimrelay#util#lsp#${fn}(${JSON.stringify(LINE)}, ${arg})`);

  it.each(Object.keys(ENCODINGS).filter((e) => editor === 'Neovim' || e === 'utf-16'))('converts every column to %s and back', async (encoding) => {
    const units = ENCODINGS[encoding as keyof typeof ENCODINGS];
    // `totalArea` is at column 39: 38 code points, 40 UTF-16 units, 45 UTF-8 bytes before it.
    expect(CHARS.slice(38, 47).join('')).toBe('totalArea');
    expect(await convert('units_of', 39, encoding)).toBe({ 'utf-8': 45, 'utf-16': 40, 'utf-32': 38 }[encoding]);
    for (let col = 1; col <= CHARS.length + 1; col++) {
      const before = CHARS.slice(0, col - 1).join('');
      expect(await convert('units_of', col, encoding), `units_of ${col}`).toBe(units(before));
      expect(await convert('byte_of', units(before), encoding), `byte_of ${col}`).toBe(Buffer.byteLength(before));
      expect(await convert('col_of', units(before), encoding), `col_of ${col}`).toBe(col);
    }
    // Inside the first 😀 (UTF-16 unit 15 of 14..15, UTF-8 byte 16 of 15..18): that character's column.
    expect(await convert('col_of', { 'utf-8': 16, 'utf-16': 15, 'utf-32': 15 }[encoding] ?? 0, encoding)).toBe({ 'utf-8': 15, 'utf-16': 15, 'utf-32': 16 }[encoding]);
    expect(await convert('col_of', 999, encoding)).toBe(CHARS.length + 1);
  });
});
