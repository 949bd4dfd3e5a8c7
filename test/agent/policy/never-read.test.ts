// never_read, the same cases on a real Neovim and on a real Vim: the content of `.env`,
// `id_ed25519`, `server.pem`, `SERVER.PEM`, a symlink to `.env` and a hard link to it named
// `notes.txt` in another directory never leaves the agent, wherever it could — read_buffer,
// grep_buffers (hits and where pages stop), get_state / get_state_brief context and line counts,
// get_diagnostics, run_command and send_keys — and those files are never edited nor saved;
// highlight_range, add_virtual_text and set_cursor, whose answers tell line counts and lengths,
// are refused for them; open_file is allowed and returns nothing of their size. A never_read list
// in the policy replaces the defaults. Each call goes
// through Editor.paths, neverReadBefore, the editor, and the check's `after`, as the guard runs it.
import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, LIMITS, STATE_LIMITS, type ToolOutcome } from '../../../protocol/index.ts';
import { DEFAULT_NEVER_READ } from '../../../agent/policy/file.ts';
import { neverReadBefore, WITHHELD } from '../../../agent/policy/never-read.ts';
import { OwnFiles } from '../../../agent/policy/own-files.ts';
import { Dispatcher } from '../../../agent/calls/dispatcher.ts';
import { controlWithin } from '../../../agent/editors/call.ts';
import { testGuard } from '../../helpers/policy.ts';
import { tempDir } from '../../helpers/temp.ts';
import { clearDiagnostics, setDiagnostics, VIM_ALE } from '../../helpers/diagnostics-source.ts';
import { type Driver, DRIVERS, validCall, waitFor } from '../../helpers/editors.ts';

const ENV_SECRET = 'API_TOKEN=sk-live-0123456789abcdef';
const KEY_SECRET = 'TOKEN-PRIVATE-KEY-MATERIAL-XYZ987';
const PEM_SECRET = 'TOKEN-CERT-SECRET-PEM-555';
const SECRETS = [ENV_SECRET, 'sk-live-0123456789abcdef', KEY_SECRET, PEM_SECRET];
const ENV = `# settings\n${ENV_SECRET}\nOTHER_TOKEN=second-secret-value\n`;
/** vimrelay's own files here: a directory of their own, apart from the editors' files. */
const own = new OwnFiles([{ path: tempDir('vimrelay-own-'), kind: 'config' }]);

interface Hit {
  buf: number;
  line: number;
}

/** The buffer a grep_buffers cursor resumes in. */
const cursorBuf = (cursor: unknown): number => Number(String(cursor).split(':')[0]);

describe.each(DRIVERS)('never_read on %s', (_kind, start) => {
  let d: Driver;
  const bufs: Record<string, number> = {};
  /** The buffer number of `name`, looked up once the editor started. */
  const buf = (name: string): number => {
    const n = bufs[name];
    if (n === undefined) throw new Error(`no buffer ${name}`);
    return n;
  };

  /** Runs a call as the guard does; the outcome must never show a secret. */
  const call = async (tool: string, args: Record<string, unknown> = {}, globs: readonly string[] = DEFAULT_NEVER_READ, home?: string): Promise<ToolOutcome> => {
    const { record, args: valid } = validCall(tool, args);
    const control = controlWithin(30_000);
    const paths = await d.editor.paths(record.addresses(valid), valid, control.signal);
    const check = await neverReadBefore({ editor: d.editor, tool: record, args: valid, paths, own, globs, ...(home === undefined ? {} : { home }) }, control);
    // As the dispatcher runs it: with what never_read has the call leave out.
    const run = (): Promise<ToolOutcome> => d.editor.run(record, valid, check.refusal === null && check.withheldPaths ? { ...control, withheldPaths: check.withheldPaths } : control);
    const outcome = check.refusal ?? (await check.after(await run(), control));
    if (globs === DEFAULT_NEVER_READ) for (const s of SECRETS) expect(JSON.stringify(outcome), `${tool} leaks ${s}`).not.toContain(s);
    return outcome;
  };
  const refused = async (tool: string, args: Record<string, unknown> = {}): Promise<string> => {
    const outcome = await call(tool, args);
    if (outcome.ok) throw new Error(`${tool} was not refused: ${JSON.stringify(outcome.data)}`);
    expect(outcome.error.code).toBe('PERMISSION_DENIED');
    expect(outcome.error.hint).toMatch(/never returned.*never_read in policy\.json/);
    return outcome.error.message;
  };
  const ok = async (tool: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> => {
    const outcome = await call(tool, args);
    if (!outcome.ok) throw new Error(`${tool} failed: ${JSON.stringify(outcome.error)}`);
    return outcome.data;
  };

  beforeAll(async () => {
    d = await start({
      files: {
        'notes.txt': 'TOKEN in notes\nplain\n',
        '.env': ENV,
        id_ed25519: `${KEY_SECRET}\n`,
        'server.pem': `${PEM_SECRET}\n`,
        'later.txt': 'TOKEN later\n',
        '.env.local': 'LOCAL_TOKEN=local-secret-value\n',
      },
      open: ['notes.txt', '.env', 'id_ed25519', 'server.pem', 'later.txt'],
      vimCmds: VIM_ALE,
    });
    symlinkSync(join(d.cwd, '.env'), join(d.cwd, 'settings-link'));
    await d.command('badd settings-link');
    for (const name of ['notes.txt', '.env', 'id_ed25519', 'server.pem', 'later.txt', 'settings-link']) {
      bufs[name] = await d.bufnr(name);
      await d.expr(`bufload(${buf(name)})`);
    }
    await d.cursor('notes.txt', 1, 0);
  });
  afterAll(() => d.stop());

  it('read_buffer is refused for every never_read file, by path, number, symlink or as the current buffer', async () => {
    expect(await refused('read_buffer', { buffer: '.env' })).toMatch(/never_read glob "\.env\*"/);
    expect(await refused('read_buffer', { buffer: 'id_ed25519' })).toMatch(/"id_ed25519\*"/);
    expect(await refused('read_buffer', { buffer: buf('server.pem') })).toMatch(/"\*\.pem"/);
    expect(await refused('read_buffer', { buffer: 'settings-link' })).toMatch(/"\.env\*"/);
    await d.cursor('.env', 1, 0);
    await refused('read_buffer');
    await d.cursor('notes.txt', 1, 0);
    expect((await ok('read_buffer', { buffer: 'notes.txt' })).lines).toEqual(['TOKEN in notes', 'plain']);
  });

  it('grep_buffers never returns a hit in them, and its pages do not stop where they are', async () => {
    expect((await ok('grep_buffers', { pattern: 'sk-live' })).hits).toEqual([]);
    const all = await ok('grep_buffers', { pattern: 'TOKEN' });
    expect((all.hits as Hit[]).map((h) => [h.buf, h.line])).toEqual([
      [buf('notes.txt'), 1],
      [buf('later.txt'), 1],
    ]);
    expect(all).toMatchObject({ truncated: false, cursor: null });
    // One hit a page: the page after notes.txt would stop inside .env; it goes on to later.txt.
    const first = await ok('grep_buffers', { pattern: 'TOKEN', max_results: 1 });
    expect((first.hits as Hit[]).map((h) => h.buf)).toEqual([buf('notes.txt')]);
    expect(first.cursor).toBe(`${buf('later.txt')}:1:0`);
    const second = await ok('grep_buffers', { pattern: 'TOKEN', max_results: 1, cursor: first.cursor });
    expect((second.hits as Hit[]).map((h) => h.buf)).toEqual([buf('later.txt')]);
    expect(second).toMatchObject({ truncated: false, cursor: null });
    // A pattern found only in never_read buffers ends the search at once, as if it found nothing.
    expect(await ok('grep_buffers', { pattern: 'SECRET', max_results: 1 })).toMatchObject({ hits: [], truncated: false, cursor: null });
    expect(await refused('grep_buffers', { pattern: 'TOKEN', buffers: ['notes.txt', '.env'] })).toMatch(/\.env/);
  });

  it('grep_buffers pages that go on past a never_read buffer stay within the caps and miss no hit', async () => {
    const long = (tag: string, i: number): string => `BIGHIT ${tag} ${String(i).padStart(4, '0')} ${'x'.repeat(370)}`;
    const lines = (tag: string, n: number): string => Array.from({ length: n }, (_, i) => long(tag, i)).join('\n') + '\n';
    writeFileSync(join(d.cwd, 'big-a.txt'), lines('a', 90));
    writeFileSync(join(d.cwd, '.env.big'), lines('secret', 300));
    writeFileSync(join(d.cwd, 'zbig.txt'), lines('z', 150));
    for (const name of ['big-a.txt', '.env.big', 'zbig.txt']) {
      await d.command(`badd ${name}`);
      await d.expr(`bufload(bufnr(${JSON.stringify(name)}))`);
    }
    const seen: string[] = [];
    let cursor: unknown = undefined;
    for (let pages = 0; pages < 10; pages++) {
      const data = await ok('grep_buffers', { pattern: 'BIGHIT', max_results: 500, ...(cursor === undefined ? {} : { cursor }) });
      expect(Buffer.byteLength(JSON.stringify(data))).toBeLessThanOrEqual(LIMITS.maxResultBytes);
      for (const h of data.hits as { text: string }[]) seen.push(h.text.slice(0, 17));
      cursor = data.cursor;
      if (cursor === null) break;
      expect(cursorBuf(cursor)).not.toBe(await d.bufnr('.env.big'));
    }
    expect(cursor).toBeNull();
    expect(seen).toEqual([...Array.from({ length: 90 }, (_, i) => long('a', i).slice(0, 17)), ...Array.from({ length: 150 }, (_, i) => long('z', i).slice(0, 17))]);
    expect(seen.some((t) => t.includes('secret'))).toBe(false);
    for (const name of ['big-a.txt', '.env.big', 'zbig.txt']) await d.command(`bwipeout! ${await d.bufnr(name)}`);
  });

  it('get_state and get_state_brief say a window shows .env, and nothing of where in it: no cursor, context, view or marks', async () => {
    type Win = { role: string; path: string; cursor: unknown; context: { lines: string[] } | null; top_line?: unknown; bottom_line?: unknown; folds?: unknown[] };
    await d.cursor('.env', 2, 0);
    await d.command('normal! mq');
    for (const tool of ['get_state_brief', 'get_state']) {
      const data = await ok(tool);
      const active = (data.windows as Win[]).find((w) => w.role === 'active');
      expect(active).toMatchObject({ path: join(d.cwd, '.env'), cursor: null, context: null });
      if (tool === 'get_state') {
        expect(active).toMatchObject({ top_line: null, bottom_line: null, folds: [] });
        expect((data.marks as { buf: number }[]).filter((m) => m.buf === buf('.env'))).toEqual([]);
      }
    }
    await d.cursor('notes.txt', 1, 0);
    await d.command('normal! mq');
    const brief = await ok('get_state_brief');
    expect((brief.windows as Win[])[0]).toMatchObject({ cursor: { line: 1, col: 1 }, context: { lines: ['TOKEN in notes', 'plain'] } });
    expect((await ok('get_state')).marks).toContainEqual(expect.objectContaining({ mark: 'q', buf: buf('notes.txt'), line: 1 }));
    // .env in the alternate window, notes.txt in the active one.
    await d.command('split');
    await d.cursor('.env', 2, 0);
    await d.command('wincmd j');
    try {
      for (const tool of ['get_state_brief', 'get_state']) {
        const windows = (await ok(tool)).windows as Win[];
        expect(windows.filter((w) => w.role !== 'other').map((w) => [w.role, w.path, w.cursor !== null, (w.context?.lines.length ?? 0) > 0])).toEqual([
          ['active', join(d.cwd, 'notes.txt'), true, true],
          ['alternate', join(d.cwd, '.env'), false, false],
        ]);
      }
    } finally {
      await d.command('only');
    }
  });

  it('get_diagnostics leaves never_read buffers out, their counts and totals too, and refuses to name one; get_state counts none of them', async () => {
    await setDiagnostics(d, buf('.env'), 'lint', [
      { lnum: 2, col: 0, severity: 1, message: `bad value ${ENV_SECRET}` },
      { lnum: 3, col: 0, severity: 2, message: 'second' },
    ]);
    // A never_read file a linter reports on without its buffer being loaded.
    await d.command('badd .env.unloaded');
    const unloaded = Number(await d.expr('bufnr(".env.unloaded")'));
    expect(Number(await d.expr(`bufloaded(${unloaded})`))).toBe(0);
    await setDiagnostics(d, unloaded, 'lint', [{ lnum: 1, col: 0, severity: 3, message: 'unloaded' }]);
    await setDiagnostics(d, buf('notes.txt'), 'lint', [{ lnum: 1, col: 0, severity: 2, message: 'a note' }]);
    try {
      const data = await ok('get_diagnostics');
      expect((data.diagnostics as { message: string }[]).map((x) => x.message)).toEqual(['a note']);
      expect(data).toMatchObject({ total: 1, counts: { error: 0, warn: 1, info: 0, hint: 0 }, truncated: false });
      // A page of one cannot stop inside them either.
      expect(await ok('get_diagnostics', { max_results: 1 })).toMatchObject({ total: 1, truncated: false, cursor: null });
      expect(await ok('get_diagnostics', { severity: 'error' })).toMatchObject({ diagnostics: [], total: 0 });
      // With no never_read globs, they are listed and counted.
      const open = await call('get_diagnostics', {}, []);
      expect(open.ok && open.data).toMatchObject({ total: 4, counts: { error: 1, warn: 2, info: 1 } });
      await refused('get_diagnostics', { buffer: '.env' });
      const summary = (await ok('get_state')).diagnostics as { error: number; warn: number; buffers: { buf: number }[] };
      expect(summary).toMatchObject({ error: 0, warn: 1 });
      expect(summary.buffers.map((b) => b.buf)).toEqual([buf('notes.txt')]);
    } finally {
      await clearDiagnostics(d, [buf('.env'), Number(await d.expr('bufnr(".env.unloaded")')), buf('notes.txt')], ['lint']);
    }
  });

  it('get_state\'s summary counts no never_read buffer, the ones beyond its listed buffers either', async () => {
    const fillers = Array.from({ length: STATE_LIMITS.diagnosticBuffers }, (_, i) => `filler${i}.txt`);
    await d.command(fillers.map((name) => `badd ${name}`).join(' | '));
    await d.command('badd .env.late');
    const numbers = await Promise.all(fillers.map((name) => d.bufnr(name)));
    const late = await d.bufnr('.env.late');
    expect(late).toBeGreaterThan(Math.max(...numbers));
    try {
      for (const n of numbers) await setDiagnostics(d, n, 'lint', [{ lnum: 1, col: 0, severity: 2, message: 'filler' }]);
      await setDiagnostics(d, late, 'lint', [{ lnum: 1, col: 0, severity: 1, message: 'late' }]);
      const summary = (await ok('get_state')).diagnostics as { error: number; warn: number; buffers: { buf: number }[]; buffers_truncated: boolean };
      // Counted, the late one would be the 51st buffer: left out of the list, its error in the totals.
      expect(summary).toMatchObject({ error: 0, warn: fillers.length, buffers_truncated: false });
      expect(summary.buffers.map((b) => b.buf)).toEqual(numbers);
      const open = await call('get_state', {}, []);
      expect(open.ok && open.data.diagnostics).toMatchObject({ error: 1, warn: fillers.length, buffers_truncated: true });
    } finally {
      await clearDiagnostics(d, [...numbers, late], ['lint']);
      await d.command(`bwipeout ${[...numbers, late].join(' ')}`);
    }
  });

  it('run_command and send_keys are refused while .env is the current buffer', async () => {
    await d.cursor('.env', 1, 0);
    await refused('run_command', { commands: '%print' });
    await refused('run_command', { commands: 'echo getline(2)' });
    await refused('send_keys', { keys: 'ggdG' });
    await d.cursor('settings-link', 1, 0);
    await refused('run_command', { commands: '%print' });
    await d.cursor('notes.txt', 1, 0);
    expect(await d.lines(buf('.env'))).toEqual(ENV.split('\n').slice(0, -1));
  });

  it('run_command output that shows a line of a never_read buffer is withheld, the rest kept', async () => {
    const data = await ok('run_command', {
      commands: [`echo getbufline(${buf('.env')}, 1, '$')`, 'echo "harmless output"', `echo getbufline(${buf('.env')}, 2)[0][0:12]`],
    });
    const outputs = (data.results as { output: string }[]).map((r) => r.output);
    expect(outputs[0]).toContain(WITHHELD);
    expect(outputs[1]).toBe('harmless output');
    expect(outputs[2]).toBe(WITHHELD);
    // An error message quoting the text is withheld too.
    const failed = await call('run_command', { commands: `execute getbufline(${buf('id_ed25519')}, 1)[0]` });
    expect(failed.ok).toBe(false);
    if (!failed.ok) expect(failed.error.message).toContain(WITHHELD);
  });

  it('edits and saves of never_read files are refused and change nothing', async () => {
    const before = await d.tick(buf('.env'));
    await refused('find_and_replace', { buffer: '.env', old_text: 'sk-live', new_text: 'x' });
    await refused('write_buffer', { buffer: '.env', text: 'x' });
    await refused('write_buffer', { buffer: 'new-cert.pem', text: 'x' });
    await refused('apply_diff', { buffer: '.env', diff: '@@ -1 +1 @@\n-# settings\n+x\n', expected_changedtick: before });
    await refused('substitute', { buffer: 'settings-link', pattern: 'sk', replacement: 'x' });
    await refused('undo', { buffer: '.env' });
    await refused('redo', { buffer: '.env' });
    await refused('save_buffer', { buffer: 'server.pem' });
    expect(await d.tick(buf('.env'))).toBe(before);
    expect(await d.lines(buf('.env'))).toEqual(ENV.split('\n').slice(0, -1));
    expect(await d.bufnr('new-cert.pem')).toBe(-1);
    expect(readFileSync(join(d.cwd, '.env'), 'utf8')).toBe(ENV);
  });

  it('open_file is allowed: it returns no content, and nothing of the file\'s size', async () => {
    const data = await ok('open_file', { path: '.env.local' });
    expect(data).toMatchObject({ created: true, exists_on_disk: true, total_lines: null, changedtick: null });
    expect(JSON.stringify(data)).not.toContain('local-secret-value');
    // Another file's size is there as ever.
    expect(await ok('open_file', { path: 'later.txt' })).toMatchObject({ total_lines: 1, changedtick: expect.any(Number) });
  });

  it('protects a hard link named notes.txt in another directory to a .env file the editor never opened', async () => {
    // (A link to a file the editor has open is that file's buffer: the editors tell by inode.)
    mkdirSync(join(d.cwd, 'deploy'));
    mkdirSync(join(d.cwd, 'elsewhere'));
    writeFileSync(join(d.cwd, 'deploy', '.env'), ENV);
    const link = join(d.cwd, 'elsewhere', 'notes.txt');
    linkSync(join(d.cwd, 'deploy', '.env'), link);
    await d.command(`badd ${link}`);
    await d.expr(`bufload(bufnr(${JSON.stringify(link)}))`);
    const linked = await d.bufnr(link);
    expect(linked).not.toBe(buf('.env'));
    try {
      const outcome = await call('read_buffer', { buffer: link });
      expect(outcome).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', hard_links: 2 } });
      expect(outcome.ok ? '' : outcome.error.message).toContain(`${link} has 2 hard links, so it may be a never_read file under another name`);
      const grep = await ok('grep_buffers', { pattern: 'sk-live' });
      expect(grep.hits).toEqual([]);
      await refused('grep_buffers', { pattern: 'TOKEN', buffers: [link] });
      await refused('find_and_replace', { buffer: link, old_text: 'sk-live', new_text: 'x' });
      await d.cursor(link, 2, 0);
      await refused('run_command', { commands: '%print' });
      const brief = await ok('get_state_brief');
      expect((brief.windows as { path: string }[])[0]).toMatchObject({ path: link, cursor: null, context: null });
      // Output that shows its lines is withheld, as for .env.
      await d.cursor('notes.txt', 1, 0);
      const run = await ok('run_command', { commands: `echo getbufline(${linked}, 2)` });
      expect((run.results as { output: string }[])[0]?.output).toBe(WITHHELD);
    } finally {
      await d.cursor('notes.txt', 1, 0);
      await d.command(`bwipeout! ${linked}`);
    }
  });

  it('matches the default globs in either case: SERVER.PEM is *.pem', async () => {
    writeFileSync(join(d.cwd, 'SERVER.PEM'), `${PEM_SECRET}\n`);
    await d.command('badd SERVER.PEM');
    expect(await refused('read_buffer', { buffer: 'SERVER.PEM' })).toMatch(/never_read glob "\*\.pem"/);
    expect(await refused('read_buffer', { buffer: 'ID_ED25519' })).toMatch(/"id_ed25519\*"/);
  });

  it('the default list covers the common credential stores, in the home directory or in any directory', async () => {
    const home = tempDir('vimrelay-stores-');
    // Each store, the glob that covers it, and a neighbour no default covers.
    const stores: [string, string][] = [
      ['.ssh/id_work', '~/.ssh/**'],
      ['.ssh/config', '~/.ssh/**'],
      ['.gnupg/pubring.kbx', '~/.gnupg/**'],
      ['.aws/credentials', '~/.aws/credentials'],
      ['.aws/sso/cache/0a1b.json', '~/.aws/sso/cache/**'],
      ['.aws/cli/cache/0a1b.json', '~/.aws/cli/cache/**'],
      ['.kube/config', '~/.kube/config'],
      ['.docker/config.json', '~/.docker/config.json'],
      ['.config/gh/hosts.yml', '~/.config/gh/hosts.yml'],
      ['.config/gcloud/credentials.db', '~/.config/gcloud/**'],
      ['.azure/msal_token_cache.json', '~/.azure/**'],
      ['.cargo/credentials.toml', '~/.cargo/credentials*'],
      ['.gem/credentials', '~/.gem/credentials'],
      ['.terraform.d/credentials.tfrc.json', '~/.terraform.d/credentials.tfrc.json'],
      ['.netrc', '.netrc'],
      ['src/app/.npmrc', '.npmrc'],
      ['.pypirc', '.pypirc'],
      ['.pgpass', '.pgpass'],
      ['.git-credentials', '.git-credentials'],
      ['.vault-token', '.vault-token'],
      ['src/app/certs/client.p12', '*.p12'],
      ['src/app/certs/CLIENT.PFX', '*.pfx'],
      ['src/app/release.jks', '*.jks'],
      ['src/app/android.keystore', '*.keystore'],
      ['Documents/passwords.kdbx', '*.kdbx'],
      ['.ssh2/id_ecdsa', 'id_ecdsa*'],
      ['keys/id_dsa.old', 'id_dsa*'],
    ];
    const neighbours = ['.aws/config', '.kube/cache/discovery.json', '.docker/daemon.json', '.config/gh/config.yml', 'src/app/.npmrc.md', 'src/app/netrc.txt', 'src/app/kdbx.md'];
    for (const file of [...stores.map(([f]) => f), ...neighbours]) {
      mkdirSync(join(home, file, '..'), { recursive: true });
      writeFileSync(join(home, file), `${ENV_SECRET}\n`);
    }
    for (const [file, glob] of stores) {
      const outcome = await call('read_buffer', { buffer: join(home, file) }, DEFAULT_NEVER_READ, home);
      expect(outcome, file).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', glob } });
    }
    for (const file of neighbours) {
      const outcome = await call('read_buffer', { buffer: join(home, file) }, DEFAULT_NEVER_READ, home);
      expect(outcome.ok, file).toBe(false);
      // Not refused: the editor has no such buffer, and no glob stopped the call first.
      expect(outcome, file).toMatchObject({ error: { code: 'BUFFER_NOT_FOUND' } });
    }
  });

  it('tells nothing of a never_read file\'s size or shape: decorations and cursor moves are refused, state has no line count', async () => {
    await refused('highlight_range', { buffer: '.env', start: { line: 1, col: 1 }, end: { line: 999, col: 9999 } });
    await refused('highlight_range', { buffer: '.env', start: { line: 2, col: 1 }, end: { line: 2, col: 9999 } });
    await refused('add_virtual_text', { buffer: '.env', line: 999, text: 'how long?' });
    await refused('set_cursor', { buffer: '.env', line: 999 });
    await refused('set_cursor', { buffer: 'settings-link', line: 2, col: 9999 });
    const brief = await ok('get_state_brief');
    const buffers = brief.buffers as { buf: number; line_count: number | null; changedtick: number | null }[];
    expect(buffers.find((b) => b.buf === buf('.env'))).toMatchObject({ line_count: null, changedtick: null });
    expect(buffers.find((b) => b.buf === buf('notes.txt'))).toMatchObject({ line_count: 2, changedtick: expect.any(Number) });
    const state = await ok('get_state');
    expect((state.buffers as { buf: number; line_count: number | null }[]).find((b) => b.buf === buf('server.pem'))?.line_count).toBeNull();
    // The same calls on an ordinary file still answer.
    expect(await ok('highlight_range', { buffer: 'notes.txt', start: { line: 1, col: 1 }, end: { line: 1, col: 9999 } })).toMatchObject({ end: { line: 1, col: 15 } });
  });

  it('applies through the Dispatcher and its CallGuard, and the audit log holds no secret', async () => {
    const { guard, auditFile } = testGuard();
    const dispatcher = new Dispatcher({ get: (id) => (id === d.editor.id ? d.editor : undefined) }, guard);
    let seq = 0;
    const handle = async (tool: string, args: Record<string, unknown>): Promise<ToolOutcome> => {
      const outcome = await dispatcher.handle({ id: `nr-${++seq}`, tool, editor: d.editor.id, args, scopes: [...ALL_SCOPES], client: 'test', deadline_ms: 30_000 });
      if (!outcome) throw new Error('no outcome');
      for (const s of SECRETS) expect(JSON.stringify(outcome)).not.toContain(s);
      return outcome;
    };
    const read = await handle('read_buffer', { buffer: 'settings-link' });
    expect(read.ok ? null : read.error.code).toBe('PERMISSION_DENIED');
    const grep = await handle('grep_buffers', { pattern: 'TOKEN' });
    expect(grep.ok && (grep.data.hits as Hit[]).map((h) => h.buf)).toEqual([buf('notes.txt'), buf('later.txt')]);
    const run = await handle('run_command', { commands: `echo getbufline(${buf('server.pem')}, 1)` });
    expect(run.ok && (run.data.results as { output: string }[])[0]?.output).toBe(WITHHELD);
    const log = readFileSync(auditFile, 'utf8');
    expect(log.trim().split('\n')).toHaveLength(3);
    for (const s of SECRETS) expect(log).not.toContain(s);
  });

  it('a never_read list in the policy replaces the defaults', async () => {
    const custom = ['notes.*'];
    const read = await call('read_buffer', { buffer: '.env' }, custom);
    expect(read.ok && read.data.lines).toEqual(ENV.split('\n').slice(0, -1));
    const notes = await call('read_buffer', { buffer: 'notes.txt' }, custom);
    expect(notes.ok ? null : notes.error.message).toMatch(/never_read glob "notes\.\*"/);
  });
});

// Visual mode needs a Vim in Normal mode (the suite above runs it in Ex mode).
describe.each(DRIVERS)('never_read and a selection on %s', (_kind, start) => {
  let d: Driver;
  beforeAll(async () => {
    d = await start({ files: { 'notes.txt': 'one\ntwo\n', '.env': ENV }, open: ['notes.txt', '.env'], vimNormal: true });
  });
  afterAll(() => d.stop());

  const state = async (): Promise<Record<string, unknown>> => {
    const { record, args } = validCall('get_state', {});
    const control = controlWithin(30_000);
    const check = await neverReadBefore({ editor: d.editor, tool: record, args, paths: [], own, globs: DEFAULT_NEVER_READ }, control);
    if (check.refusal) throw new Error(JSON.stringify(check.refusal));
    const outcome = await check.after(await d.editor.run(record, args, control), control);
    if (!outcome.ok) throw new Error(outcome.error.message);
    return outcome.data;
  };
  const selecting = async (file: string): Promise<void> => {
    await d.cursor(file, 1, 0);
    await d.type('Vj');
    await waitFor(async () => ((await d.expr<string>('mode()')) === 'V' ? true : undefined), 5_000, 'visual mode');
  };

  it('drops a selection inside .env, and keeps one in an ordinary file', async () => {
    await selecting('notes.txt');
    expect((await state()).selection).toMatchObject({ kind: 'line', start: { line: 1 }, end: { line: 2 } });
    await d.type('\x1b');
    await selecting('.env');
    expect((await state()).selection).toBeNull();
    await d.type('\x1b');
  });
});
