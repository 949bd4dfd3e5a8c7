// lsp_rename on Neovim and Vim (ALE, and vim-lsp) against the real servers of helpers/lsp.ts: the preview lists
// every file with its edits (ranges on the old name after é😀😀, old and new text) and changes
// nothing; applying refuses a stale changedtick, and a buffer that changed between the server's
// answer and the edit (a user's change made while the agent vets the files), changing nothing; an
// apply makes every edit in the editor's buffers (files no buffer held opened for it, listed), one
// undo step per buffer, nothing saved, and the server sees the new text. Then the policy around it,
// through the Dispatcher and the CallGuard: a preview is a read (allowed under `write deny`, and with
// a read-only token), an apply a write; never_read files are left out of previews and references
// (counted in `withheld`, their text never shown), an apply touching one is refused, and so is one
// touching a file a `write deny` path rule covers, or one the user denies at the prompt.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, type ToolOutcome } from '../../../../protocol/index.ts';
import { readAudit } from '../../../../agent/audit/log.ts';
import { Dispatcher } from '../../../../agent/calls/dispatcher.ts';
import { DEFAULT_NEVER_READ } from '../../../../agent/policy/file.ts';
import { controlWithin } from '../../../../agent/editors/call.ts';
import { permissivePolicy, testGuard } from '../../../helpers/policy.ts';
import { answerPrompt, shown } from '../../../helpers/prompt-view.ts';
import { DRIVERS, waitFor, type Driver } from '../../../helpers/editors.ts';
import { charsOf, clientOf, fixtureFiles, LSP_EDITORS, lspDriver, pathIn, SERVERS, type ServerCase } from '../../../helpers/lsp.ts';

interface Edit {
  line: number;
  col: number;
  end_line: number;
  end_col: number;
  old_text: string;
  new_text: string;
}
interface FileEdits {
  path: string;
  buf: number | null;
  changedtick: number | null;
  edits: Edit[];
}

/** A file's lines as a buffer holds them (no empty line after the final newline). */
const linesOf = (text: string): string[] => text.replace(/\n$/, '').split('\n');

describe.each(LSP_EDITORS)('lsp_rename on %s', (editor) => {
  describe.each(SERVERS)('with $name', (server: ServerCase) => {
    let d: Driver;
    const disk = fixtureFiles(server.fixture);
    const rel = (path: string): string => path.slice(d.cwd.length + 1);
    const rename = { buffer: server.rename.file, line: server.rename.line, col: server.rename.col, new_name: server.renameTo };
    /** Whether a buffer holds the file and has it loaded. */
    const loaded = async (file: string): Promise<boolean> => Boolean(await d.expr(`bufloaded(${JSON.stringify(file)})`));
    /** Every file as it is on disk, and its buffer (if loaded) as it is on disk too. */
    const unchanged = async (): Promise<void> => {
      for (const file of server.renamed) {
        expect(readFileSync(pathIn(d, file), 'utf8'), file).toBe(disk[file]);
        if (await loaded(file)) expect(await d.lines(await d.bufnr(file)), file).toEqual(linesOf(disk[file] ?? ''));
      }
    };

    beforeAll(async () => {
      d = await lspDriver(clientOf(editor), server);
    }, 90_000);
    afterAll(() => d?.stop());

    it('previews the edits across files, on the old name after é😀😀, changing nothing', async () => {
      const buf = await d.bufnr(server.rename.file);
      const tick = await d.tick(buf);
      const r = await d.ok('lsp_rename', rename);
      const files = r.files as FileEdits[];
      expect(r).toMatchObject({ server: server.name, applied: false, truncated: false, withheld: 0 });
      expect(files.map((f) => rel(f.path))).toEqual(server.renamed);
      expect(r.edit_count).toBe(files.reduce((n, f) => n + f.edits.length, 0));
      for (const f of files) {
        expect(f.changedtick).toBeNull();
        const lines = linesOf(disk[rel(f.path)] ?? '');
        for (const e of f.edits) {
          expect(e, `${rel(f.path)}:${e.line}`).toMatchObject({ end_line: e.line, old_text: server.renameFrom, new_text: server.renameTo });
          expect(charsOf(lines[e.line - 1] ?? '', e.col, e.end_col)).toBe(server.renameFrom);
        }
      }
      expect(files.find((f) => rel(f.path) === server.rename.file)?.edits).toContainEqual(expect.objectContaining({ line: server.rename.line, col: server.rename.col }));
      expect(await d.tick(buf)).toBe(tick);
      await unchanged();
    });

    it('refuses to apply with a stale changedtick, changing nothing', async () => {
      const tick = await d.tick(await d.bufnr(server.rename.file));
      const r = await d.call('lsp_rename', { ...rename, apply: true, expected_changedtick: tick + 1 });
      expect(r).toMatchObject({ ok: false, error: { code: 'STALE_CHANGEDTICK', current_changedtick: tick } });
      await unchanged();
    });

    it('refuses, changing nothing, when a file changes between the server\'s answer and the edit', async () => {
      const other = server.renamed.find((f) => f !== server.rename.file) ?? '';
      const tick = await d.tick(await d.bufnr(server.rename.file));
      let original = '';
      let changedLine = 0;
      const control = {
        ...controlWithin(30_000),
        // While the agent vets the files, the user opens one of them (if no buffer had it) and edits it.
        vetEdits: async (paths: readonly string[]): Promise<ToolOutcome | null> => {
          expect(paths.map(rel)).toEqual(server.renamed);
          if (!(await loaded(other))) await d.ok('open_file', { path: other });
          const buf = await d.bufnr(other);
          const lines = await d.lines(buf);
          changedLine = lines.findIndex((l) => l.includes(server.renameFrom)) + 1;
          original = lines[changedLine - 1] ?? '';
          await d.setLine(buf, changedLine, original.replace(server.renameFrom, `${server.renameFrom}_by_the_user`));
          return null;
        },
      };
      const r = await d.call('lsp_rename', { ...rename, apply: true, expected_changedtick: tick }, control);
      // The changedtick given back is the position's buffer's, the one the next apply names.
      expect(r).toMatchObject({ ok: false, error: { code: 'STALE_CHANGEDTICK', message: expect.stringContaining(pathIn(d, other)), current_changedtick: tick } });
      expect(await d.lines(await d.bufnr(server.rename.file))).toEqual(linesOf(disk[server.rename.file] ?? ''));
      const buf = await d.bufnr(other);
      expect((await d.lines(buf))[changedLine - 1]).toBe(original.replace(server.renameFrom, `${server.renameFrom}_by_the_user`));
      await d.setLine(buf, changedLine, original);
    });

    it('previews a new name that holds the old one as edits of the whole name, never a piece of it, and applies it', async () => {
      // pylsp answers with whole lines: what differs between them is cut at the edges of words.
      const name = `${server.renameFrom}_${server.renameFrom}`;
      const preview = await d.ok('lsp_rename', { ...rename, new_name: name });
      for (const f of preview.files as FileEdits[]) for (const e of f.edits) expect(e, `${rel(f.path)}:${e.line}`).toMatchObject({ old_text: server.renameFrom, new_text: name });
      // An apply and its undo before the tests below only with a server that follows edits at once
      // (pylsp garbles its copy of a file an edit after an astral character reaches; clangd
      // rebuilds in the background): the others' apply makes the same edits the preview lists.
      if (!server.followsEdits) return;
      const tick = await d.tick(await d.bufnr(server.rename.file));
      const r = await d.ok('lsp_rename', { ...rename, new_name: name, apply: true, expected_changedtick: tick });
      expect(r).toMatchObject({ applied: true });
      for (const f of r.files as FileEdits[]) {
        const buf = await d.bufnr(rel(f.path));
        const lines = await d.lines(buf);
        for (const e of f.edits) expect(charsOf(lines[e.line - 1] ?? '', e.col, e.col + [...name].length), `${rel(f.path)}:${e.line}`).toBe(name);
        await d.undo(buf);
        expect(await d.lines(buf), rel(f.path)).toEqual(linesOf(disk[rel(f.path)] ?? ''));
      }
    });

    it('applies every edit in the buffers, opening files for it, one undo step each, nothing saved', async () => {
      const before = new Map<string, boolean>();
      for (const file of server.renamed) before.set(file, await loaded(file));
      const tick = await d.tick(await d.bufnr(server.rename.file));
      const r = await d.ok('lsp_rename', { ...rename, apply: true, expected_changedtick: tick });
      const files = r.files as FileEdits[];
      expect(r).toMatchObject({ applied: true, truncated: false, withheld: 0 });
      expect(files.map((f) => rel(f.path))).toEqual(server.renamed);
      for (const f of files) {
        const file = rel(f.path);
        const buf = await d.bufnr(file);
        expect(f).toMatchObject({ buf, changedtick: await d.tick(buf) });
        expect(await d.listed(buf)).toBe(true);
        const lines = await d.lines(buf);
        for (const e of f.edits) expect(charsOf(lines[e.line - 1] ?? '', e.col, e.col + [...server.renameTo].length)).toBe(server.renameTo);
        expect(readFileSync(f.path, 'utf8'), `${file} on disk`).toBe(disk[file]);
        expect(before.get(file) || (await loaded(file)), `${file} loaded for the rename`).toBe(true);
      }
      // The server was told: the symbol's references in every file now read the new name.
      if (server.followsEdits) {
        const refs = await d.ok('lsp_references', { buffer: server.rename.file, line: server.rename.line, col: server.rename.col });
        const found = refs.files as { path: string; references: { text: string }[] }[];
        expect(found.map((f) => rel(f.path))).toEqual(server.renamed);
        for (const text of found.flatMap((f) => f.references.map((x) => x.text))) expect(text).toContain(server.renameTo);
      }
      // One undo step per buffer brings each back to the file's text.
      for (const f of files) {
        const buf = await d.bufnr(rel(f.path));
        await d.undo(buf);
        expect(await d.lines(buf), rel(f.path)).toEqual(linesOf(disk[rel(f.path)] ?? ''));
      }
    });

    it('applies as well when a buffer the server\'s answer named was wiped while the agent vetted the edits, opening its file again', async () => {
      const other = server.renamed.find((f) => f !== server.rename.file) ?? '';
      if (!(await loaded(other))) await d.ok('open_file', { path: other });
      const tick = await d.tick(await d.bufnr(server.rename.file));
      const control = {
        ...controlWithin(30_000),
        vetEdits: async (): Promise<ToolOutcome | null> => {
          // Its text is the file's (the tests before put it back), so the file on disk is checked instead.
          await d.command(`bwipeout! ${await d.bufnr(other)}`);
          return null;
        },
      };
      const r = await d.call('lsp_rename', { ...rename, apply: true, expected_changedtick: tick }, control);
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      for (const f of r.data.files as FileEdits[]) {
        const buf = await d.bufnr(rel(f.path));
        expect(f.buf, rel(f.path)).toBe(buf);
        expect((await d.lines(buf)).join('\n'), rel(f.path)).toContain(server.renameTo);
        await d.undo(buf);
        expect(await d.lines(buf), rel(f.path)).toEqual(linesOf(disk[rel(f.path)] ?? ''));
      }
    });
  });
});

const TSLS = SERVERS.find((s) => s.name === 'tsls') as ServerCase;
/** A module whose `area` a shorthand property names: renaming it, typescript-language-server writes `area: <new name>` there. */
const SHORTHAND = 'const area = 1;\nexport const shape = { area };\n';

describe.each(LSP_EDITORS)('lsp_rename on %s, from a server that writes other text than the new name', (editor) => {
  let d: Driver;

  beforeAll(async () => {
    d = await lspDriver(clientOf(editor), { ...TSLS, open: ['src/shorthand.ts'] }, { files: { 'src/shorthand.ts': SHORTHAND } });
  }, 90_000);
  afterAll(() => d?.stop());

  it('previews that text, and refuses to apply it, changing nothing', async () => {
    const args = { buffer: 'src/shorthand.ts', line: 1, col: 7, new_name: 'surface' };
    const preview = await d.ok('lsp_rename', args);
    expect((preview.files as FileEdits[]).flatMap((f) => f.edits.map((e) => e.new_text))).toEqual(['surface', 'area: surface']);
    const buf = await d.bufnr('src/shorthand.ts');
    const tick = await d.tick(buf);
    const r = await d.call('lsp_rename', { ...args, apply: true, expected_changedtick: tick });
    expect(r).toMatchObject({ ok: false, error: { code: 'EDITOR_ERROR', message: expect.stringContaining('would write "area: surface" in') } });
    expect(await d.tick(buf)).toBe(tick);
    expect(await d.lines(buf)).toEqual(linesOf(SHORTHAND));
  });
});

const PYRIGHT = SERVERS.find((s) => s.name === 'pyright') as ServerCase;
const SECRET = 'sk-live-lsp-0123456789';
/** never_read: the default globs and `secret_*.py`, which a module of the project matches. */
const NEVER_READ = [...DEFAULT_NEVER_READ, 'secret_*.py'];
/** A module never_read covers, using the function the tests rename. */
const NEVER_READ_MODULE = `"""Not for a model's eyes."""\nfrom shapes.geometry import total_area\n\nTOKEN = "${SECRET}"\nprint(TOKEN, total_area([]))\n`;

describe.each(DRIVERS)('the policy around lsp_* results and renames on %s', (editor) => {
  let d: Driver;
  let seq = 0;
  const rel = (path: string): string => path.slice(d.cwd.length + 1);
  const total = { buffer: PYRIGHT.call.file, line: PYRIGHT.call.line, col: PYRIGHT.call.col };
  const member = { buffer: PYRIGHT.member.file, line: PYRIGHT.member.line, col: PYRIGHT.member.col };

  /** The audit log of the last `handle`'s guard. */
  let lastAudit = '';
  /** The decision and outcome of the last call `handle` ran, as its audit line has them. */
  const audited = (): { decision: string; outcome: string } | undefined => readAudit(lastAudit, 1)[0];
  type Rules = ReturnType<typeof permissivePolicy>['rules'];
  type Handle = (tool: string, args: Record<string, unknown>, scopes?: readonly string[]) => Promise<ToolOutcome>;
  /** Calls through one Dispatcher and CallGuard over `rules` (added to the permissive policy): a session allowance lasts across them. */
  const guarded = (rules: Rules): Handle => {
    const policy = permissivePolicy();
    const { guard, auditFile } = testGuard({ rules: [...policy.rules, ...rules], never_read: NEVER_READ });
    lastAudit = auditFile;
    const dispatcher = new Dispatcher({ get: (id) => (id === d.editor.id ? d.editor : undefined) }, guard);
    return async (tool, args, scopes = ALL_SCOPES) => {
      const outcome = await dispatcher.handle({ id: `lsp-${++seq}`, tool, editor: d.editor.id, args, scopes: [...scopes], client: 'pat:test', deadline_ms: 30_000 });
      if (!outcome) throw new Error('no outcome');
      expect(JSON.stringify(outcome), `${tool} shows the never_read module's text`).not.toContain(SECRET);
      return outcome;
    };
  };
  /** Runs a call through a Dispatcher and a CallGuard of its own over `rules`. */
  const handle = (tool: string, args: Record<string, unknown>, rules: Rules = [], scopes: readonly string[] = ALL_SCOPES): Promise<ToolOutcome> => guarded(rules)(tool, args, scopes);
  /** The text of the next prompt shown that names `file` (its `path:` line), once one is; the prompt's own wrapping undone. */
  const promptNaming = (file: string): Promise<string> =>
    waitFor(() => shown(d).then((lines) => (lines?.join('').includes(`path: ${d.cwd}/${file}`) ? lines.join('') : undefined)), 20_000, `a prompt naming ${file}`);
  const tickOf = async (file: string): Promise<number> => d.tick(await d.bufnr(file));
  const untouched = async (): Promise<void> => {
    expect(await d.lines(await d.bufnr(PYRIGHT.call.file))).toEqual(linesOf(fixtureFiles('py')[PYRIGHT.call.file] ?? ''));
    for (const file of ['shapes/geometry.py', 'shapes/secret_tokens.py']) expect(await d.expr(`bufloaded(${JSON.stringify(file)})`), file).toBe(0);
  };

  beforeAll(async () => {
    // A Vim in Normal mode, as a user has it: its prompt takes the user's key. Neither editor has a
    // name the user chose, so "allow always" at a prompt is an allowance for that editor's session.
    d = await lspDriver(editor === 'Neovim' ? 'nvim' : 'ale', PYRIGHT, { files: { 'shapes/secret_tokens.py': NEVER_READ_MODULE }, vimNormal: true, name: '' });
  }, 90_000);
  afterAll(() => d?.stop());

  it('leaves references and symbols in never_read files out, counting them in withheld', async () => {
    const refs = await handle('lsp_references', total);
    if (!refs.ok) throw new Error(JSON.stringify(refs.error));
    expect(refs.data).toMatchObject({ total: 6, withheld: 2 });
    expect((refs.data.files as FileEdits[]).map((f) => rel(f.path))).toEqual(['shapes/geometry.py', 'shapes/main.py']);
    const symbols = await handle('lsp_symbols', { buffer: PYRIGHT.call.file, query: 'TOKEN' });
    expect(symbols).toMatchObject({ ok: true, data: { symbols: [], withheld: 1 } });
  });

  it('refuses a request from a never_read buffer', async () => {
    await handle('open_file', { path: 'shapes/secret_tokens.py' });
    const r = await handle('lsp_hover', { buffer: 'shapes/secret_tokens.py', line: 5, col: 15 });
    expect(r).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', glob: 'secret_*.py' } });
    await d.command(`bwipeout ${await d.bufnr('shapes/secret_tokens.py')}`);
  });

  it('leaves a never_read file out of a preview, and refuses an apply that would change it, changing nothing', async () => {
    const preview = await handle('lsp_rename', { ...total, new_name: 'sum_of_areas' });
    if (!preview.ok) throw new Error(JSON.stringify(preview.error));
    expect(preview.data).toMatchObject({ edit_count: 6, withheld: 2 });
    expect((preview.data.files as FileEdits[]).map((f) => rel(f.path))).toEqual(['shapes/geometry.py', 'shapes/main.py']);
    const apply = await handle('lsp_rename', { ...total, new_name: 'sum_of_areas', apply: true, expected_changedtick: await tickOf(PYRIGHT.call.file) });
    expect(apply).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', glob: 'secret_*.py', message: expect.stringContaining('secret_tokens.py') } });
    expect(audited()).toMatchObject({ decision: 'never_read', outcome: 'PERMISSION_DENIED' });
    await untouched();
  });

  it('takes a preview as a read and an apply as a write: `write deny`, and a read-only token, allow only the preview', async () => {
    const args = { ...member, new_name: 'surface' };
    for (const [rules, scopes] of [[[{ klass: 'write' as const, decision: 'deny' as const }], ALL_SCOPES], [[], ['read']]] as const) {
      expect(await handle('lsp_rename', args, [...rules], scopes)).toMatchObject({ ok: true, data: { applied: false } });
      const apply = await handle('lsp_rename', { ...args, apply: true, expected_changedtick: await tickOf(PYRIGHT.member.file) }, [...rules], scopes);
      expect(apply).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    }
    await untouched();
  });

  it('refuses an apply that would change a file a `write deny` path rule covers, though the position is in another', async () => {
    const apply = await handle('lsp_rename', { ...member, new_name: 'surface', apply: true, expected_changedtick: await tickOf(PYRIGHT.member.file) }, [
      { klass: 'write', decision: 'deny', path: 'geometry.py' },
    ]);
    expect(apply).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', rule: expect.stringContaining('geometry.py') } });
    expect(audited()).toMatchObject({ decision: 'deny', outcome: 'PERMISSION_DENIED' });
    await untouched();
  });

  it('asks before an apply that would change a file a `write ask` path rule covers, and the user can deny it', async () => {
    const asked = handle('lsp_rename', { ...member, new_name: 'surface', apply: true, expected_changedtick: await tickOf(PYRIGHT.member.file) }, [
      { klass: 'write', decision: 'ask', path: 'geometry.py' },
    ]);
    const prompt = await waitFor(() => shown(d).then((lines) => lines ?? undefined), 20_000, 'the prompt');
    // The prompt cuts a long line into rows: joined, the path is whole again.
    expect(prompt.join('')).toContain(`${d.cwd}/shapes/geometry.py`);
    await answerPrompt(d, 'deny');
    expect(await asked).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', message: expect.stringContaining('denied') } });
    expect(audited()).toMatchObject({ decision: 'ask:deny', outcome: 'PERMISSION_DENIED' });
    await untouched();
  });

  it('asks again, naming them, when the edits reach files its prompt did not show; a denial there changes nothing', async () => {
    const call = guarded([{ klass: 'write', decision: 'ask' }]);
    const apply = async (): Promise<ToolOutcome> => call('lsp_rename', { ...member, new_name: 'surface', apply: true, expected_changedtick: await tickOf(PYRIGHT.member.file) });
    const denied = apply();
    const first = await promptNaming(PYRIGHT.member.file);
    expect(first).not.toContain('geometry.py');
    await answerPrompt(d, 'allow_once');
    const second = await promptNaming('shapes/geometry.py');
    expect(second).not.toContain(`path: ${d.cwd}/${PYRIGHT.member.file}`);
    expect(second).toContain('which the first prompt did not show');
    await answerPrompt(d, 'deny');
    expect(await denied).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', message: expect.stringContaining('denied') } });
    expect(audited()).toMatchObject({ decision: 'ask:deny', outcome: 'PERMISSION_DENIED' });
    await untouched();

    // Allowed at both prompts, it is made.
    const allowed = apply();
    await promptNaming(PYRIGHT.member.file);
    await answerPrompt(d, 'allow_once');
    await promptNaming('shapes/geometry.py');
    await answerPrompt(d, 'allow_once');
    expect(await allowed).toMatchObject({ ok: true, data: { applied: true } });
    expect(audited()).toMatchObject({ decision: 'ask:allow_once', outcome: 'ok' });
    for (const file of ['shapes/geometry.py', PYRIGHT.member.file]) {
      const buf = await d.bufnr(file);
      expect((await d.lines(buf)).join('\n'), file).toContain('surface');
      await d.undo(buf);
    }
    await d.command(`bwipeout ${await d.bufnr('shapes/geometry.py')}`);
    await untouched();
  });

  it('asks about a file with an `ask` rule of its own when an allowance for the editor let the call through', async () => {
    const call = guarded([
      { klass: 'write', decision: 'ask' },
      { klass: 'write', decision: 'ask', path: 'geometry.py' },
    ]);
    // "Allow in this editor" (the editor has no name the user chose) at a first write's prompt.
    const moved = call('set_cursor', { line: 1 });
    await waitFor(() => shown(d).then((lines) => (lines?.join('').includes('set_cursor') ? true : undefined)), 20_000, 'the prompt of set_cursor');
    await answerPrompt(d, 'allow_always');
    expect(await moved).toMatchObject({ ok: true });
    expect(audited()).toMatchObject({ decision: 'ask:allow_session' });

    const apply = call('lsp_rename', { ...member, new_name: 'surface', apply: true, expected_changedtick: await tickOf(PYRIGHT.member.file) });
    const prompt = await promptNaming('shapes/geometry.py');
    expect(prompt).not.toContain(`path: ${d.cwd}/${PYRIGHT.member.file}`);
    await answerPrompt(d, 'deny');
    expect(await apply).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(audited()).toMatchObject({ decision: 'ask:deny', outcome: 'PERMISSION_DENIED' });
    await untouched();
  });
});
