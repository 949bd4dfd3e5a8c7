/**
 * `npx tsx scripts/fetch-editors.ts [--refresh] [name...]`: fetches the newer editors the tests
 * run on (all of them when none is named: nvim-0.10, nvim-0.12, vim-9.1, vim-9.2) into
 * `.cache/editors/`, without root, as scripts/editors/editors.ts describes; one already fetched is
 * reused unless `--refresh`. Prints what each one is and the directory to put first on PATH.
 */
import { parseArgs } from 'node:util';
import { binDir, EDITORS, ensureEditors, isEditorName, type EditorName } from './editors/editors.ts';

const { values, positionals } = parseArgs({ options: { refresh: { type: 'boolean', default: false } }, allowPositionals: true });
const unknown = positionals.filter((name) => !isEditorName(name));
if (unknown.length > 0) {
  process.stderr.write(`unknown editor ${unknown.join(', ')}: choose among ${Object.keys(EDITORS).join(', ')}\n`);
  process.exit(2);
}
const names = positionals.length > 0 ? (positionals as EditorName[]) : (Object.keys(EDITORS) as EditorName[]);
try {
  for (const editor of ensureEditors(names, { refresh: values.refresh, log: (line) => process.stdout.write(`${line}\n`) })) {
    process.stdout.write(`${editor.name}: ${editor.reports}; PATH=${binDir(editor.name)}:$PATH\n`);
  }
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
