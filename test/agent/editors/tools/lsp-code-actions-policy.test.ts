// The policy around lsp_code_actions on Neovim and Vim, through the Dispatcher and the CallGuard,
// with real servers: listing and previewing read, applying an edit writes, and applying an action
// that runs a server command is exec:
// - pyright's "Create Type Stub" (a command that writes stub files) is refused under `exec deny`,
//   with a token without exec, and at the prompt, which names the action's title and says that the
//   server runs a command: nothing runs, no stub is written;
// - typescript-language-server's "Organize Imports" (an edit) is refused under `write deny`, and
//   may still be listed;
// - a quick fix whose edit reaches a never_read file (exporting a name from it) is refused before
//   anything runs (its command included), and a preview leaves that file out, counted in
//   `withheld`, its text never shown; the actions of a never_read buffer are not listed.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, type ToolOutcome } from '../../../../protocol/index.ts';
import { Dispatcher } from '../../../../agent/calls/dispatcher.ts';
import { DEFAULT_NEVER_READ } from '../../../../agent/policy/file.ts';
import type { Rule } from '../../../../agent/policy/types.ts';
import { permissivePolicy, testGuard } from '../../../helpers/policy.ts';
import { answerPrompt, shown } from '../../../helpers/prompt-view.ts';
import { DRIVERS, waitFor, type Driver } from '../../../helpers/editors.ts';
import { lspDriver } from '../../../helpers/lsp.ts';
import { ACTIONS_TS, diagnosed, linesOf, offered, PYRIGHT, STUB_FILES, TSLS, type Action } from '../../../helpers/lsp-actions.ts';

const SECRET = 'sk-live-lsp-0123456789';
/** A module never_read covers (`secret_*.ts`), whose `hidden` the other imports though it is not exported. */
const SECRET_FILES = {
  'src/secret_shapes.ts': `const hidden = "${SECRET}";\nexport const shown = hidden.length;\n`,
  'src/uses_secret.ts': "import { hidden } from './secret_shapes';\nexport const value = hidden;\n",
  'src/actions.ts': ACTIONS_TS,
};

/** Calls through one Dispatcher and CallGuard over the permissive policy and `rules`, never_read `secret_*.ts` too. */
function dispatcherOf(d: Driver, rules: Rule[]): (tool: string, args: Record<string, unknown>, scopes?: readonly string[]) => Promise<ToolOutcome> {
  const policy = permissivePolicy();
  const { guard } = testGuard({ rules: [...policy.rules, ...rules], never_read: [...DEFAULT_NEVER_READ, 'secret_*.ts'] });
  const dispatcher = new Dispatcher({ get: (id) => (id === d.editor.id ? d.editor : undefined) }, guard);
  let seq = 0;
  return async (tool, args, scopes = ALL_SCOPES) => {
    const outcome = await dispatcher.handle({ id: `actions-${++seq}`, tool, editor: d.editor.id, args, scopes: [...scopes], client: 'pat:test', deadline_ms: 30_000 });
    if (!outcome) throw new Error('no outcome');
    expect(JSON.stringify(outcome), `${tool} shows the never_read module's text`).not.toContain(SECRET);
    return outcome;
  };
}

describe.each(DRIVERS)('the policy around lsp_code_actions on %s', (editor) => {
  describe('a server command (pyright\'s Create Type Stub)', () => {
    let d: Driver;
    const file = 'shapes/stubless.py';
    const at = { buffer: file, line: 1, col: 8 };
    let id = '';
    const stubs = (): boolean => existsSync(join(d.cwd, 'typings'));

    beforeAll(async () => {
      // A Vim in Normal mode, as a user has it: its prompt takes the user's key.
      d = await lspDriver(editor === 'Neovim' ? 'nvim' : 'ale', { ...PYRIGHT, open: [file] }, { files: STUB_FILES, vimNormal: true, name: '' });
      id = await offered(d, at);
      expect(id).toMatch(/^x[0-9a-f]{8}:Create Type Stub For "plainlib"$/);
    }, 90_000);
    afterAll(() => d?.stop());

    it('is exec: refused under `exec deny`, and for a token without exec, though listing it reads', async () => {
      const call = dispatcherOf(d, [{ klass: 'exec', decision: 'deny' }]);
      expect(await call('lsp_code_actions', at)).toMatchObject({ ok: true });
      expect(await call('lsp_code_actions', { ...at, id })).toMatchObject({ ok: true, data: { applied: false } });
      const apply = { ...at, id, apply: true, expected_changedtick: await d.tick(await d.bufnr(file)) };
      expect(await call('lsp_code_actions', apply)).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', rule: 'exec deny' } });
      expect(await dispatcherOf(d, [])('lsp_code_actions', apply, ['read', 'write'])).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', required_scope: 'exec' } });
      expect(stubs()).toBe(false);
    });

    it('asks as exec, its prompt naming the action and saying the server runs a command; denied, nothing runs', async () => {
      const asked = dispatcherOf(d, [{ klass: 'exec', decision: 'ask' }])('lsp_code_actions', { ...at, id, apply: true, expected_changedtick: await d.tick(await d.bufnr(file)) });
      const prompt = await waitFor(() => shown(d).then((lines) => (lines?.join('').includes('lsp_code_actions') ? lines.join('') : undefined)), 20_000, 'the prompt');
      expect(prompt).toContain('(exec)');
      expect(prompt).toContain('Create Type Stub For "plainlib"');
      expect(prompt).toContain('which runs a command of the language server');
      await answerPrompt(d, 'deny');
      expect(await asked).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
      expect(stubs()).toBe(false);
    });
  });

  describe('edits (typescript-language-server)', () => {
    let d: Driver;
    const file = 'src/actions.ts';
    const organize = { buffer: file, line: 1, col: 1, kinds: ['source.organizeImports'] };
    const fix = { buffer: 'src/uses_secret.ts', line: 1, col: 10 };

    beforeAll(async () => {
      d = await lspDriver(editor === 'Neovim' ? 'nvim' : 'ale', { ...TSLS, open: ['src/uses_secret.ts', file] }, { files: SECRET_FILES });
      await diagnosed(d, 'src/uses_secret.ts', 1);
    }, 90_000);
    afterAll(() => d?.stop());

    it('takes write to apply an edit: `write deny` refuses Organize Imports, which it may still list', async () => {
      const call = dispatcherOf(d, [{ klass: 'write', decision: 'deny' }]);
      const list = await call('lsp_code_actions', organize);
      if (!list.ok) throw new Error(JSON.stringify(list.error));
      const id = (list.data.actions as Action[]).find((a) => a.title === 'Organize Imports')?.id;
      const buf = await d.bufnr(file);
      expect(await call('lsp_code_actions', { ...organize, id, apply: true, expected_changedtick: await d.tick(buf) })).toMatchObject({
        ok: false,
        error: { code: 'PERMISSION_DENIED', rule: 'write deny' },
      });
      expect(await d.lines(buf)).toEqual(linesOf(ACTIONS_TS));
    });

    it('refuses an apply whose edit reaches a never_read file, before anything runs; a preview leaves that file out', async () => {
      const call = dispatcherOf(d, []);
      const list = await call('lsp_code_actions', fix);
      if (!list.ok) throw new Error(JSON.stringify(list.error));
      const exported = (list.data.actions as Action[]).find((a) => a.title === "Export 'hidden' from module './secret_shapes'");
      expect(exported?.id).toMatch(/^x/);
      expect(await call('lsp_code_actions', { ...fix, id: exported?.id })).toMatchObject({ ok: true, data: { files: [], edit_count: 1, withheld: 1 } });
      const apply = await call('lsp_code_actions', { ...fix, id: exported?.id, apply: true, expected_changedtick: await d.tick(await d.bufnr('src/uses_secret.ts')) });
      expect(apply).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', glob: 'secret_*.ts', message: expect.stringContaining('secret_shapes.ts') } });
      expect(await d.expr('bufloaded("src/secret_shapes.ts")')).toBe(0);
      expect(readFileSync(join(d.cwd, 'src/secret_shapes.ts'), 'utf8')).toBe(SECRET_FILES['src/secret_shapes.ts']);
    });

    it('refuses to list the actions of a never_read buffer', async () => {
      const call = dispatcherOf(d, []);
      await call('open_file', { path: 'src/secret_shapes.ts' });
      expect(await call('lsp_code_actions', { buffer: 'src/secret_shapes.ts', line: 1, col: 7 })).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', glob: 'secret_*.ts' } });
      await d.command(`bwipeout ${await d.bufnr('src/secret_shapes.ts')}`);
    });
  });
});
