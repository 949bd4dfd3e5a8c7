/**
 * Puts diagnostics into either editor through its real producer API, so that get_diagnostics and
 * get_state read them as they would a language server's or a linter's: Neovim's
 * vim.diagnostic.set (one namespace per source), and on Vim ALE's ale#other_source#ShowResults
 * (one ALE "linter" per source). `VIM_ALE` are the commands that load the installed ALE into a test
 * Vim, running none of its own linters.
 */
import type { Driver } from './editors.ts';

/** Loads ALE (installed as an optional package) and keeps it to the results a test shows. */
export const VIM_ALE = ['let g:ale_linters_explicit = 1', 'packadd ale'];

/**
 * One diagnostic in editor-neutral terms: 1-based lines, 0-based byte columns, `end_col`
 * exclusive (absent: it ends where it starts), severity 1 (error) to 3 (info): ALE has no hints.
 */
export interface DiagnosticItem {
  lnum: number;
  col: number;
  end_lnum?: number;
  end_col?: number;
  severity: 1 | 2 | 3;
  message: string;
  code?: string | number;
}

/** Replaces `source`'s diagnostics of buffer `buf` with `items`, a list or a Vimscript expression giving one. */
export async function setDiagnostics(d: Driver, buf: number, source: string, items: DiagnosticItem[] | string): Promise<void> {
  const list = typeof items === 'string' ? items : JSON.stringify(items);
  if (d.kind === 'nvim') {
    await d.expr(
      `luaeval('(function(source, buf, items) ` +
        `for _, v in ipairs(items) do v.lnum = v.lnum - 1; v.end_lnum = v.end_lnum and v.end_lnum - 1; v.source = source end ` +
        `vim.diagnostic.set(vim.api.nvim_create_namespace(source), buf, items) end)(_A[1], _A[2], _A[3])', [${JSON.stringify(source)}, ${buf}, ${list}])`,
    );
    return;
  }
  // ALE's loclist items: 1-based byte `col`, inclusive `end_col` (the exclusive 0-based one), type E/W/I.
  await d.expr(
    `ale#other_source#ShowResults(${buf}, ${JSON.stringify(source)}, map(${list}, {_, v -> extend(` +
      `{'lnum': v.lnum, 'col': v.col + 1, 'type': ['E', 'W', 'I'][v.severity - 1], 'text': v.message}, ` +
      `filter({'end_lnum': get(v, 'end_lnum', v:null), 'end_col': get(v, 'end_col', v:null), 'code': get(v, 'code', v:null)}, 'v:val isnot v:null'))}))`,
  );
}

/** Removes every diagnostic the test set: a `vim.diagnostic.reset()`, or empty results for each of `sources` in each of `bufs` (ALE). */
export async function clearDiagnostics(d: Driver, bufs: number[], sources: string[]): Promise<void> {
  if (d.kind === 'nvim') {
    await d.expr(`luaeval('vim.diagnostic.reset()')`);
    return;
  }
  for (const buf of bufs) for (const source of sources) await setDiagnostics(d, buf, source, []);
}
