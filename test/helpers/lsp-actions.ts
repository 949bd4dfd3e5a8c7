/**
 * What the tests of lsp_code_actions, lsp_format and the hierarchies share (helpers/lsp.ts has the
 * servers): files for the fixture projects that give each server something to offer, and the shapes
 * of their results.
 * - ACTIONS_TS (src/actions.ts, typescript-language-server): an unused import (`totalArea`), a name
 *   not imported (`Shape`, line 7 from column 21), a line indented by 4 in a file indented by 2
 *   (line 4), and an expression to extract (line 5, columns 10 to 30).
 * - ACTIONS_C (actions.c, clangd): a declaration missing its `;` (line 5; clangd's diagnostic is on
 *   line 6), a line with odd spacing (line 8), and `twice` calling `scaled`.
 * - STUB_FILES (pyright): a module importing `plainlib`, a library of the project's virtual
 *   environment with no stubs, which pyright reports (reportMissingTypeStubs) and offers to make
 *   stubs for.
 */
import { waitFor, type Driver } from './editors.ts';
import { SERVERS, type ServerCase } from './lsp.ts';

export const TSLS = SERVERS.find((s) => s.name === 'tsls') as ServerCase;
export const PYRIGHT = SERVERS.find((s) => s.name === 'pyright') as ServerCase;
export const PYLSP = SERVERS.find((s) => s.name === 'pylsp') as ServerCase;
export const CLANGD = SERVERS.find((s) => s.name === 'clangd') as ServerCase;

export const ACTIONS_TS = `import { totalArea, Circle } from './geometry';

export function scaled(r: number): number {
    const c = new Circle(r);
  return c.area() * 2 + r * 3;
}
export const first: Shape = new Circle(1);
`;

export const ACTIONS_C = `#include "geometry.h"

double scaled(double r) {
  struct circle c = {r};
  int x = 3
  return total_area(&c, 1) * 2 + r * x;
}
double twice(void) {   return  scaled( 1 ); }
`;

export const STUB_FILES: Record<string, string> = {
  'pyrightconfig.json': '{ "include": ["shapes"], "venvPath": ".", "venv": "venv", "reportMissingTypeStubs": "warning" }\n',
  'venv/pyvenv.cfg': 'home = /usr/bin\n',
  'venv/lib/python3.11/site-packages/plainlib/__init__.py': 'def hello() -> int:\n    return 1\n',
  'shapes/stubless.py': 'import plainlib\nprint(plainlib.hello())\n',
};

/** An action as lsp_code_actions lists it. */
export interface Action {
  id: string;
  title: string;
  kind: string | null;
  preferred: boolean;
  command: string | null;
  disabled: string | null;
}

/** One file of an edit's result. */
export interface FileEdits {
  path: string;
  buf: number | null;
  changedtick: number | null;
  edits: { line: number; col: number; end_line: number; end_col: number; old_text: string; new_text: string }[];
}

/** A file's lines as a buffer holds them (no empty line after the final newline). */
export function linesOf(text: string): string[] {
  return text.replace(/\n$/, '').split('\n');
}

/** Waits until buffer `file` has `n` diagnostics at least: its server has analysed it. */
export async function diagnosed(d: Driver, file: string, n: number): Promise<void> {
  await waitFor(async () => (((await d.ok('get_diagnostics', { buffer: file })).total as number) >= n ? true : undefined), 30_000, `${n} diagnostics of ${file}`);
}

/**
 * Waits until the server offers an action at `at`, which it does once it has analysed the file;
 * resolves with the first one's id. Not by its diagnostics: a Neovim that pulls them (0.11+) may
 * have asked before the analysis, and then has none until the buffer changes.
 */
export async function offered(d: Driver, at: Record<string, unknown>): Promise<string> {
  return waitFor(async () => ((await d.ok('lsp_code_actions', at)).actions as Action[])[0]?.id, 30_000, `an action at ${JSON.stringify(at)}`);
}
