// The editor tool records (agent/editors/tools/) hold the catalog whole: every catalog tool routed
// to an editor has exactly one record, with its twin files (lua/<impl>.lua and
// autoload/vimrelay/<impl>.vim defining vimrelay#<impl>#run), and what the policy needs: the files
// a call addresses, what never_read does with it, and a preview that shows what it would do. A new
// tool missing any of them fails here. And a Vim plugin older than a tool answers UNSUPPORTED.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESSING } from '../../../../agent/editors/tools/tool.ts';
import { EDITOR_IMPLS, EDITOR_TOOLS, editorTool } from '../../../../agent/editors/tools/index.ts';
import { parseArgs, permissionFor, reviewStatus, TOOLS } from '../../../../protocol/index.ts';
import { vimDriver, type Driver } from '../../../helpers/editors.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');

/**
 * Arguments each editor tool is checked with: valid, and naming what a preview should show. A
 * catalog tool without an entry here fails the test, so a new tool is checked too.
 */
const SAMPLES: Readonly<Record<string, Record<string, unknown>>> = {
  get_state_brief: {},
  get_state: {},
  read_buffer: { buffer: 'notes.md' },
  grep_buffers: { pattern: 'needle' },
  get_diagnostics: { buffer: 'notes.md' },
  find_and_replace: { buffer: 'notes.md', old_text: 'old words', new_text: 'new words' },
  apply_diff: { buffer: 'notes.md', diff: '@@ -1,1 +1,1 @@\n-old words\n+new words\n', expected_changedtick: 3 },
  write_buffer: { buffer: 'notes.md', text: 'new words\n' },
  substitute: { buffer: 'notes.md', pattern: 'old', replacement: 'new' },
  undo: { buffer: 'notes.md' },
  redo: { buffer: 'notes.md' },
  set_cursor: { buffer: 'notes.md', line: 7 },
  highlight_range: { buffer: 'notes.md', start: { line: 1, col: 1 }, end: { line: 1, col: 4 } },
  add_virtual_text: { buffer: 'notes.md', line: 1, text: 'a note' },
  clear_decorations: { buffer: 'notes.md' },
  open_file: { path: 'notes.md' },
  save_buffer: { buffer: 'notes.md' },
  run_command: { commands: ['echo "hi"'] },
  send_keys: { keys: 'ggdd' },
  send_to_terminal: { text: 'make test' },
  lsp_definition: { buffer: 'main.ts', line: 4, col: 39, kind: 'type_definition' },
  lsp_references: { buffer: 'main.ts', line: 4, col: 39 },
  lsp_hover: { buffer: 'main.ts', line: 4, col: 39 },
  lsp_symbols: { query: 'totalArea' },
  lsp_rename: { buffer: 'main.ts', line: 4, col: 39, new_name: 'sumOfAreas', apply: true, expected_changedtick: 3 },
  lsp_calls: { buffer: 'main.ts', line: 4, col: 39, direction: 'outgoing' },
  lsp_types: { buffer: 'main.ts', line: 6, col: 14, direction: 'subtypes' },
  lsp_code_actions: { buffer: 'main.ts', line: 5, col: 10, end_line: 5, end_col: 30, id: 'x2945264d:Extract to function in module scope', apply: true, expected_changedtick: 3 },
  lsp_format: { buffer: 'main.ts', start_line: 3, end_line: 6, apply: true, expected_changedtick: 3 },
};

/** What the preview of each sample must contain: what the call would do or touch. */
const SHOWS: Readonly<Record<string, string>> = {
  read_buffer: 'notes.md',
  grep_buffers: 'needle',
  get_diagnostics: 'notes.md',
  find_and_replace: 'new words',
  apply_diff: '+new words',
  write_buffer: 'new words',
  substitute: 's/old/new/',
  undo: 'undo',
  redo: 'redo',
  set_cursor: 'line 7',
  highlight_range: '1:1-1:4',
  add_virtual_text: 'a note',
  clear_decorations: 'notes.md',
  open_file: 'notes.md',
  save_buffer: 'notes.md',
  run_command: 'echo "hi"',
  send_keys: 'ggdd',
  send_to_terminal: 'make test',
  lsp_definition: 'type_definition at main.ts line 4, column 39',
  lsp_references: 'main.ts line 4, column 39',
  lsp_hover: 'main.ts line 4, column 39',
  lsp_symbols: 'totalArea',
  lsp_rename: 'sumOfAreas',
  lsp_calls: 'functions called by the function at main.ts line 4, column 39',
  lsp_types: 'subtypes of the type at main.ts line 6, column 14',
  lsp_code_actions: 'Extract to function in module scope',
  lsp_format: 'format main.ts lines 3 to 6',
};

// review_status is routed to an editor, but the agent answers it from the reviews it holds (agent/reviews/).
const editorSpecs = TOOLS.filter((t) => t.routing === 'editor' && t !== reviewStatus);

describe('the editor tool records', () => {
  it('has one record for each catalog tool routed to an editor, and none for another', () => {
    expect(editorSpecs.filter((t) => editorTool(t.name)?.spec !== t).map((t) => t.name)).toEqual([]);
    expect(EDITOR_TOOLS.map((t) => t.spec.name)).toEqual(editorSpecs.map((t) => t.name));
  });

  it.each(EDITOR_IMPLS)('has the twin files of %s', (impl) => {
    expect(existsSync(join(ROOT, 'agent/editors/nvim/lua', `${impl}.lua`))).toBe(true);
    const vim = join(ROOT, 'plugin/vim/autoload/vimrelay', `${impl}.vim`);
    expect(existsSync(vim)).toBe(true);
    expect(readFileSync(vim, 'utf8')).toContain(`function! vimrelay#${impl}#run(`);
  });

  it.each(editorSpecs.map((t) => t.name))('knows what a call of %s addresses, what never_read does and what it previews', (name) => {
    const record = editorTool(name);
    const sample = SAMPLES[name];
    expect(record, 'a record').toBeDefined();
    expect(sample, `a sample in ${import.meta.filename}`).toBeDefined();
    if (!record || !sample) return;
    const parsed = parseArgs(record.spec, sample);
    if (!parsed.ok) throw new Error(`the sample of ${name} is invalid: ${JSON.stringify(parsed.outcome)}`);
    expect(ADDRESSING).toContain(record.addresses(parsed.args));
    expect(typeof record.neverRead.refuses(parsed.args)).toBe('boolean');
    // Every read returns some text: never_read refuses it for such files, or filters what it returns.
    if (record.spec.annotations.readOnlyHint) expect(record.neverRead.refuses(parsed.args) || record.neverRead.filter !== undefined).toBe(true);
    const preview = record.preview(parsed.args).join('\n');
    expect(preview.length).toBeGreaterThan(0);
    if (SHOWS[name] !== undefined) expect(preview).toContain(SHOWS[name]);
  });

  it('runs deferred tools as deferred, and a commit phase only when its arguments ask for one', () => {
    const deferred = EDITOR_TOOLS.filter((t) => t.answer === 'deferred').map((t) => t.spec.name);
    expect(deferred).toEqual(['lsp_definition', 'lsp_references', 'lsp_hover', 'lsp_symbols', 'lsp_calls', 'lsp_types', 'lsp_rename', 'lsp_code_actions', 'lsp_format']);
    const edits = ['lsp_rename', 'lsp_code_actions', 'lsp_format'];
    for (const name of edits) {
      const record = editorTool(name);
      expect(record?.commit?.impl, name).toBe('lsp_edit_apply');
      expect(record?.commit?.when({ apply: true }), name).toBe(true);
      expect(record?.commit?.when({}), name).toBe(false);
      expect(record?.review, name).toEqual({ kind: 'commit', impl: 'lsp_edit_propose' });
    }
    expect(EDITOR_TOOLS.filter((t) => t.commit).map((t) => t.spec.name)).toEqual(edits);
  });

  it('takes the class of an lsp_code_actions call from its arguments: a command is exec, an edit write, a list or preview read', () => {
    const spec = editorTool('lsp_code_actions')?.spec;
    if (!spec) throw new Error('no lsp_code_actions');
    const at = { buffer: 'main.ts', line: 5, col: 10 };
    expect(permissionFor(spec, at)).toBe('read');
    expect(permissionFor(spec, { ...at, id: 'x2945264d:Extract to function in module scope' })).toBe('read');
    expect(permissionFor(spec, { ...at, id: 'x2945264d:Extract to function in module scope', apply: true, expected_changedtick: 3 })).toBe('exec');
    expect(permissionFor(spec, { ...at, id: 'ef102935f:Organize Imports', apply: true, expected_changedtick: 3 })).toBe('write');
    // A command cannot be reviewed: the call is refused before it runs.
    expect(parseArgs(spec, { ...at, id: 'x2945264d:Extract', apply: true, expected_changedtick: 3, review: true })).toMatchObject({ ok: false });
    expect(parseArgs(spec, { ...at, apply: true, expected_changedtick: 3 })).toMatchObject({ ok: false });
  });
});

describe('a tool the Vim plugin does not have', () => {
  let d: Driver;
  beforeAll(async () => {
    d = await vimDriver({ files: { 'a.txt': 'a\n' }, open: ['a.txt'] });
  });
  afterAll(() => d.stop());

  it('answers UNSUPPORTED with a hint to update (an older plugin)', async () => {
    expect(await d.expr("vimrelay#call('no_such_tool', {})")).toMatchObject({
      ok: false,
      error: { code: 'UNSUPPORTED', message: expect.stringContaining('no_such_tool'), hint: expect.stringContaining('Update') },
    });
  });
});
