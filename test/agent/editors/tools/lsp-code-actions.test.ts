// lsp_code_actions on Neovim and Vim (ALE, and vim-lsp) against the real servers of helpers/lsp.ts,
// on files of their fixture projects that give them something to offer:
// - typescript-language-server: the quick fix for a diagnostic (an import to update: an edit, with a
//   command the server answers at once) is listed with the diagnostic sent from the client's store,
//   previewed changing nothing, and applied as one undo step, unsaved; organize imports is an edit
//   alone (its id says so); an extract refactor is a server command whose edits the editor's
//   language client makes (ALE takes none by itself: the plugin makes them while the command runs;
//   vim-lsp leaves the server's next request unanswered, which ends the wait); a stale changedtick,
//   and a buffer changed between the server's answer and the edit, change nothing; an id that names
//   no action offered now (or whose class was changed) is NO_MATCH;
// - clangd: the fix-it of a diagnostic, an edit alone;
// - pyright: "Create Type Stub", a command that writes files, which the server runs;
// - pylsp (no plugins): none.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolOutcome } from '../../../../protocol/index.ts';
import { controlWithin } from '../../../../agent/editors/call.ts';
import { replaceLines, waitFor, type Driver, type NvimDriver } from '../../../helpers/editors.ts';
import { clientOf, LSP_EDITORS, lspDriver } from '../../../helpers/lsp.ts';
import { ACTIONS_C, ACTIONS_TS, CLANGD, diagnosed, linesOf, offered, PYLSP, PYRIGHT, STUB_FILES, TSLS, type Action, type FileEdits } from '../../../helpers/lsp-actions.ts';

describe.each(LSP_EDITORS)('lsp_code_actions on %s', (editor) => {
  describe('with typescript-language-server', () => {
    let d: Driver;
    let buf = 0;
    const file = 'src/actions.ts';
    const at = (line: number, col: number, more: Record<string, unknown> = {}) => ({ buffer: file, line, col, ...more });
    const original = linesOf(ACTIONS_TS);
    const restore = async (): Promise<void> => {
      if ((await d.lines(buf)).join('\n') !== original.join('\n')) await replaceLines(d, buf, original);
    };

    beforeAll(async () => {
      d = await lspDriver(clientOf(editor), { ...TSLS, open: [file] }, { files: { [file]: ACTIONS_TS } });
      buf = await d.bufnr(file);
      // The unused import and the missing name.
      await diagnosed(d, file, 2);
    }, 90_000);
    afterAll(() => d?.stop());

    it('lists the quick fix of a diagnostic, previews it changing nothing, and applies it as one undo step, unsaved', async () => {
      const list = await d.ok('lsp_code_actions', at(7, 21));
      expect(list).toMatchObject({ server: 'tsls', applied: false, files: [], truncated: false });
      const fix = (list.actions as Action[]).find((a) => a.kind === 'quickfix');
      expect(fix).toMatchObject({ title: 'Update import from "./geometry"', preferred: true, command: '_typescript.applyCodeActionCommand', disabled: null });
      // It runs a command after its edit: its id says so.
      expect(fix?.id).toMatch(/^x[0-9a-f]{8}:Update import from "\.\/geometry"$/);
      const tick = await d.tick(buf);
      const preview = await d.ok('lsp_code_actions', at(7, 21, { id: fix?.id }));
      expect(preview).toMatchObject({ applied: false, edit_count: 1, actions: [fix] });
      expect(preview.files).toEqual([{ path: join(d.cwd, file), buf, changedtick: null, edits: [{ line: 1, col: 27, end_line: 1, end_col: 27, old_text: '', new_text: ', Shape' }] }]);
      expect(await d.tick(buf)).toBe(tick);
      expect(await d.lines(buf)).toEqual(original);

      const applied = await d.ok('lsp_code_actions', at(7, 21, { id: fix?.id, apply: true, expected_changedtick: tick }));
      expect(applied).toMatchObject({ applied: true, edit_count: 1, files: [{ path: join(d.cwd, file), buf, changedtick: await d.tick(buf) }] });
      expect((await d.lines(buf))[0]).toBe("import { totalArea, Circle, Shape } from './geometry';");
      expect(await d.expr(`getbufvar(${buf}, '&modified')`)).toBe(1);
      await d.undo(buf);
      expect(await d.lines(buf)).toEqual(original);
    });

    it('organizes the imports: an edit alone, whose id says so', async () => {
      const list = await d.ok('lsp_code_actions', at(1, 1, { kinds: ['source.organizeImports'] }));
      const organize = (list.actions as Action[]).find((a) => a.title === 'Organize Imports');
      expect(organize).toMatchObject({ kind: 'source.organizeImports.ts', command: null, preferred: false });
      expect(organize?.id).toMatch(/^e[0-9a-f]{8}:Organize Imports$/);
      const applied = await d.ok('lsp_code_actions', at(1, 1, { kinds: ['source.organizeImports'], id: organize?.id, apply: true, expected_changedtick: await d.tick(buf) }));
      expect(applied).toMatchObject({ applied: true });
      // Sorted; the unused name is left to "Remove Unused Imports".
      expect((await d.lines(buf))[0]).toBe("import { Circle, totalArea } from './geometry';");
      await d.undo(buf);
      expect(await d.lines(buf)).toEqual(original);
    });

    it('extracts a function: a server command, whose edits the editor\'s language client makes', async () => {
      const range = at(5, 10, { end_line: 5, end_col: 30, kinds: ['refactor.extract'] });
      const list = await d.ok('lsp_code_actions', range);
      const extract = (list.actions as Action[]).find((a) => a.title === 'Extract to function in module scope');
      expect(extract).toMatchObject({ kind: 'refactor.extract.function', command: '_typescript.applyRefactoring' });
      expect(extract?.id).toMatch(/^x/);
      const applied = await d.ok('lsp_code_actions', { ...range, id: extract?.id, apply: true, expected_changedtick: await d.tick(buf) });
      // The edits came from the server (workspace/applyEdit); the answer names the buffer they changed.
      expect(applied).toMatchObject({ applied: true, edit_count: 0, files: [{ path: join(d.cwd, file), buf, changedtick: await d.tick(buf), edits: [] }] });
      const text = (await d.lines(buf)).join('\n');
      expect(text).toContain('return newFunction(c, r);');
      expect(text).toContain('function newFunction(c: Circle, r: number): number {');
      // typescript-language-server then asks the editor to rename what it extracted, which no
      // client here does: the command ends with that error, after its edits.
      if (applied.command_error !== undefined) expect(applied.command_error).toMatch(/^The command _typescript\.applyRefactoring of tsls ended with an error: /);
      await restore();
    });

    it('refuses a stale changedtick, changing nothing', async () => {
      const tick = await d.tick(buf);
      const list = await d.ok('lsp_code_actions', at(1, 1, { kinds: ['source.organizeImports'] }));
      const id = (list.actions as Action[]).find((a) => a.title === 'Organize Imports')?.id;
      expect(await d.call('lsp_code_actions', at(1, 1, { kinds: ['source.organizeImports'], id, apply: true, expected_changedtick: tick + 1 }))).toMatchObject({
        ok: false,
        error: { code: 'STALE_CHANGEDTICK', current_changedtick: tick },
      });
      expect(await d.lines(buf)).toEqual(original);
    });

    it('refuses, changing nothing, when the buffer changes between the server\'s answer and the edit', async () => {
      const args = at(1, 1, { kinds: ['source.organizeImports'] });
      const id = ((await d.ok('lsp_code_actions', args)).actions as Action[]).find((a) => a.title === 'Organize Imports')?.id;
      const tick = await d.tick(buf);
      const control = {
        ...controlWithin(30_000),
        // While the agent vets the files, the user edits the buffer.
        vetEdits: async (paths: readonly string[]): Promise<ToolOutcome | null> => {
          expect(paths).toEqual([join(d.cwd, file)]);
          await d.setLine(buf, 2, '// typed by the user');
          return null;
        },
      };
      const r = await d.call('lsp_code_actions', { ...args, id, apply: true, expected_changedtick: tick }, control);
      expect(r).toMatchObject({ ok: false, error: { code: 'STALE_CHANGEDTICK', current_changedtick: await d.tick(buf) } });
      expect((await d.lines(buf))[0]).toBe(original[0]);
      expect((await d.lines(buf))[1]).toBe('// typed by the user');
      await restore();
    });

    it('answers NO_MATCH for an id that names no action offered now, one whose class was changed included', async () => {
      const list = await d.ok('lsp_code_actions', at(5, 10, { end_line: 5, end_col: 30, kinds: ['refactor.extract'] }));
      const extract = (list.actions as Action[]).find((a) => a.title === 'Extract to function in module scope');
      const tick = await d.tick(buf);
      // An `e` id would take only the write permission: the editor makes ids again and finds none such.
      const downgraded = `e${extract?.id.slice(1) ?? ''}`;
      for (const id of [downgraded, 'e00000000:Organize Everything']) {
        expect(await d.call('lsp_code_actions', at(5, 10, { end_line: 5, end_col: 30, id, apply: true, expected_changedtick: tick })), id).toMatchObject({
          ok: false,
          error: { code: 'NO_MATCH', hint: expect.stringContaining('without id') },
        });
      }
      expect(await d.lines(buf)).toEqual(original);
    });
  });

  describe('with clangd', () => {
    let d: Driver;
    const file = 'actions.c';

    beforeAll(async () => {
      d = await lspDriver(clientOf(editor), { ...CLANGD, open: [file] }, { files: { [file]: ACTIONS_C } });
      await diagnosed(d, file, 1);
    }, 90_000);
    afterAll(() => d?.stop());

    it('applies the fix-it of a diagnostic: an edit alone', async () => {
      const buf = await d.bufnr(file);
      const list = await d.ok('lsp_code_actions', { buffer: file, line: 6, col: 3 });
      expect(list.actions).toEqual([{ id: expect.stringMatching(/^e[0-9a-f]{8}:insert ';'$/), title: "insert ';'", kind: 'quickfix', preferred: true, command: null, disabled: null }]);
      const [fix] = list.actions as Action[];
      const applied = await d.ok('lsp_code_actions', { buffer: file, line: 6, col: 3, id: fix?.id, apply: true, expected_changedtick: await d.tick(buf) });
      expect((applied.files as FileEdits[])[0]?.edits).toEqual([{ line: 5, col: 12, end_line: 5, end_col: 12, old_text: '', new_text: ';' }]);
      expect((await d.lines(buf))[4]).toBe('  int x = 3;');
      await d.undo(buf);
      expect(await d.lines(buf)).toEqual(linesOf(ACTIONS_C));
    });
  });

  describe('with pyright', () => {
    let d: Driver;
    const file = 'shapes/stubless.py';

    beforeAll(async () => {
      d = await lspDriver(clientOf(editor), { ...PYRIGHT, open: [file] }, { files: STUB_FILES });
      await offered(d, { buffer: file, line: 1, col: 8 });
    }, 90_000);
    afterAll(() => d?.stop());

    it('runs "Create Type Stub", a command that writes the stub files on disk, changing no buffer', async () => {
      const list = await d.ok('lsp_code_actions', { buffer: file, line: 1, col: 8 });
      expect(list.actions).toEqual([
        { id: expect.stringMatching(/^x/), title: 'Create Type Stub For "plainlib"', kind: 'quickfix', preferred: false, command: 'pyright.createtypestub', disabled: null },
      ]);
      const [stub] = list.actions as Action[];
      const buf = await d.bufnr(file);
      expect(existsSync(join(d.cwd, 'typings/plainlib'))).toBe(false);
      const applying = d.ok('lsp_code_actions', { buffer: file, line: 1, col: 8, id: stub?.id, apply: true, expected_changedtick: await d.tick(buf) });
      // pyright then shows "Type stub was successfully created" and waits for the client's answer:
      // Neovim 0.7's client shows it at a hit-enter prompt, which waits for a key, as for the user's
      // own code action; 0.12's shows it without waiting.
      if (d.kind === 'nvim') {
        const { client } = (d as NvimDriver).nvim;
        let done = false;
        void applying.finally(() => (done = true));
        const blocked = await waitFor(async () => (done ? 'done' : ((await client.request('nvim_get_mode', [])) as { blocking: boolean }).blocking ? 'blocked' : undefined), 20_000, 'the command to end or Neovim to show the message');
        if (blocked === 'blocked') await d.type('<CR>');
      }
      expect(await applying).toMatchObject({ applied: true, files: [], edit_count: 0 });
      expect(existsSync(join(d.cwd, 'typings/plainlib/__init__.pyi'))).toBe(true);
    });
  });

  describe('with pylsp', () => {
    let d: Driver;

    beforeAll(async () => {
      d = await lspDriver(clientOf(editor), PYLSP);
    }, 90_000);
    afterAll(() => d?.stop());

    it('lists none (pylsp offers code actions through plugins only)', async () => {
      expect(await d.ok('lsp_code_actions', { buffer: PYLSP.call.file, line: PYLSP.call.line, col: PYLSP.call.col })).toEqual({
        server: 'pylsp',
        actions: [],
        applied: false,
        files: [],
        edit_count: 0,
        truncated: false,
        withheld: 0,
      });
    });
  });
});
