/**
 * Which Neovim and Vim the Node suites run: those on PATH, unless `VIMRELAY_TEST_EDITORS` names
 * newer ones (comma-separated, at most one of each program: `nvim-0.10`, `nvim-0.12`, `vim-9.1`,
 * `vim-9.2`), fetched into `.cache/editors/` by scripts/editors/editors.ts when not yet there,
 * whose wrappers then come first on PATH, for every editor the tests start (setup/machine.ts, run
 * next, says which editors the run uses). A vitest global set-up: it runs once, before the test
 * processes start, and they inherit its PATH.
 */
import { delimiter } from 'node:path';
import { binDir, EDITORS, ensureEditors, isEditorName, type EditorName } from '../../scripts/editors/editors.ts';

/** The editors `spec` names (the variable's value), or an error saying what is wrong with it. */
export function selectedEditors(spec: string | undefined): EditorName[] {
  const names = (spec ?? '').split(',').map((n) => n.trim()).filter(Boolean);
  const unknown = names.filter((n) => !isEditorName(n));
  if (unknown.length > 0) throw new Error(`VIMRELAY_TEST_EDITORS names ${unknown.join(', ')}: choose among ${Object.keys(EDITORS).join(', ')}`);
  const selected = names as EditorName[];
  for (const program of ['nvim', 'vim'] as const) {
    const twice = selected.filter((n) => EDITORS[n].program === program);
    if (twice.length > 1) throw new Error(`VIMRELAY_TEST_EDITORS names ${twice.join(' and ')}: one ${program} per run`);
  }
  return selected;
}

export default function setup(): void {
  const selected = selectedEditors(process.env.VIMRELAY_TEST_EDITORS);
  ensureEditors(selected, { log: (line) => process.stderr.write(`${line}\n`) });
  process.env.PATH = [...selected.map(binDir), process.env.PATH ?? ''].join(delimiter);
}
