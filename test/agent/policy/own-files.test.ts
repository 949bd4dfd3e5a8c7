// vimrelay's own files (agent/policy/own-files.ts): which names count (its config, state and
// runtime directories, `.dev.vars`, `.wrangler/`, the launcher's places; `..` and case folded),
// by real path (a symlinked config directory) and by identity (a hard link elsewhere, but not any
// hard-linked file). Then through the real Dispatcher and CallGuard on Neovim and Vim, with a
// policy that allows everything and sets `never_read: []`: calls that name one are refused
// `own_file` and audited so, command output that would show one's lines is withheld, and, with a
// real pyright, lsp_* results leave out locations in one (counted in `withheld`) and an lsp_rename
// apply that would change one is refused, changing nothing.
import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, PERMISSION_CLASSES, type ToolOutcome } from '../../../protocol/index.ts';
import { readAudit } from '../../../agent/audit/log.ts';
import { Dispatcher } from '../../../agent/calls/dispatcher.ts';
import type { Policy } from '../../../agent/policy/file.ts';
import { OwnFiles, ownByName, ownPlaces, type OwnPlace } from '../../../agent/policy/own-files.ts';
import { isolatedEnv } from '../../helpers/agent-process.ts';
import { DRIVERS, type Driver } from '../../helpers/editors.ts';
import { lspDriver, SERVERS, type ServerCase } from '../../helpers/lsp.ts';
import { testGuard } from '../../helpers/policy.ts';
import { tempDir } from '../../helpers/temp.ts';

/** Every class allowed, never_read empty: only the agent's own rule is left. */
const OPEN_POLICY: Policy = { rules: PERMISSION_CLASSES.map((klass) => ({ klass, decision: 'allow' as const })), never_read: [] };
const CREDENTIAL = 'vrd_own-files-unit-credential-0123456789';

describe('which files are vimrelay\'s own', () => {
  const places: OwnPlace[] = [
    { path: '/home/u/.config/vimrelay', kind: 'config' },
    { path: '/home/u/.local/state/vimrelay', kind: 'state' },
    { path: '/tmp/vimrelay-1000', kind: 'runtime' },
    { path: '/tmp/vimrelay-1000-', kind: 'runtime', prefix: true },
    { path: '/srv/relay/state', kind: 'relay_storage' },
  ];

  it('counts everything under its places by name, `..` resolved and in either case, and nothing beside them', () => {
    expect(ownByName('/home/u/.config/vimrelay/credentials.json', places)).toBe('config');
    expect(ownByName('/home/u/.config/vimrelay/sub/x', places)).toBe('config');
    expect(ownByName('/home/u/.config/VimRelay/Credentials.JSON', places)).toBe('config');
    expect(ownByName('/home/u/src/../.config/vimrelay/./policy.json', places)).toBe('config');
    expect(ownByName('/home/u/.local/state/vimrelay/audit.log.1', places)).toBe('state');
    expect(ownByName('/tmp/vimrelay-1000/vim.sock', places)).toBe('runtime');
    expect(ownByName('/tmp/vimrelay-1000-Ab12Cd/vim.sock', places)).toBe('runtime');
    expect(ownByName('/srv/relay/state/v3/do/hub.sqlite', places)).toBe('relay_storage');
    expect(ownByName('/home/u/.config/vimrelay-notes/todo.md', places)).toBeNull();
    expect(ownByName('/home/u/.config/nvim/init.lua', places)).toBeNull();
    expect(ownByName('/tmp/vimrelay-10000/x', places)).toBeNull();
  });

  it('counts any .dev.vars and anything under a .wrangler directory, wherever it is', () => {
    expect(ownByName('/home/u/src/relay/.dev.vars', places)).toBe('dev_vars');
    expect(ownByName('/home/u/src/other/.DEV.VARS', places)).toBe('dev_vars');
    expect(ownByName('/home/u/src/relay/.wrangler/state/v3/do/x.sqlite', places)).toBe('wrangler');
    expect(ownByName('/home/u/src/relay/.dev.vars.example', places)).toBeNull();
    expect(ownByName('/home/u/src/relay/.wrangler', places)).toBeNull();
    expect(ownByName('/home/u/src/relay/wrangler.toml', places)).toBeNull();
  });

  it('counts a file reached through a symlinked config directory (made yet or not), and a hard link to one of its files, not any hard link', async () => {
    const root = tempDir('vimrelay-own-');
    const realConfig = join(root, 'dotfiles', 'vimrelay');
    mkdirSync(realConfig, { recursive: true });
    mkdirSync(join(root, 'config'));
    symlinkSync(realConfig, join(root, 'config', 'vimrelay'));
    writeFileSync(join(realConfig, 'credentials.json'), `{"device_credential": "${CREDENTIAL}"}\n`);
    mkdirSync(join(root, 'work'));
    linkSync(join(realConfig, 'credentials.json'), join(root, 'work', 'notes.txt'));
    writeFileSync(join(root, 'work', 'a.txt'), 'a\n');
    linkSync(join(root, 'work', 'a.txt'), join(root, 'work', 'b.txt'));
    const own = new OwnFiles([{ path: join(root, 'config', 'vimrelay'), kind: 'config' }]);
    expect(await own.match([join(realConfig, 'credentials.json')])).toEqual({ path: join(realConfig, 'credentials.json'), own: 'config' });
    expect(await own.match([join(root, 'work', 'notes.txt')])).toEqual({ path: join(root, 'work', 'notes.txt'), own: 'config', hardLinks: 2 });
    expect(await own.match([join(root, 'work', 'b.txt'), join(root, 'work', 'a.txt')])).toBeNull();
    expect(await own.match([join(root, 'config', 'vimrelay', 'not-yet.json')])).toEqual({ path: join(root, 'config', 'vimrelay', 'not-yet.json'), own: 'config' });
    // A file not made yet, through a symlink to the directory elsewhere: where it would land counts.
    symlinkSync(realConfig, join(root, 'work', 'settings'));
    expect(await own.match([join(root, 'work', 'settings', 'deeper', 'policy.json')])).toEqual({ path: join(root, 'work', 'settings', 'deeper', 'policy.json'), own: 'config' });
    expect(await own.match([join(root, 'work', 'nothing', 'policy.json')])).toBeNull();
  });

  it('places an agent\'s own directories by its environment, the Vim socket\'s and the launcher\'s included', () => {
    const env = { HOME: '/home/u', XDG_CONFIG_HOME: '/home/u/cfg', XDG_STATE_HOME: '/home/u/st', XDG_RUNTIME_DIR: '/run/user/1000' };
    const places = ownPlaces(env, [{ path: '/srv/relay/.dev.vars', kind: 'dev_vars' }]);
    expect(ownByName('/home/u/cfg/vimrelay/vim-token', places)).toBe('config');
    expect(ownByName('/home/u/st/vimrelay/status.json', places)).toBe('state');
    expect(ownByName('/run/user/1000/vimrelay/vim.sock', places)).toBe('runtime');
    expect(ownByName('/run/user/1000/vimrelay-0-x1y2z3/vim.sock', places)).toBe('runtime');
    expect(ownByName('/srv/relay/.dev.vars', places)).toBe('dev_vars');
    expect(ownByName('/home/u/cfg/nvim/init.lua', places)).toBeNull();
  });
});

describe.each(DRIVERS)('vimrelay\'s own files through the guard on %s', (_kind, start) => {
  let d: Driver;
  let config: string;
  let auditFile: string;
  let dispatcher: Dispatcher;
  let seq = 0;
  const handle = async (tool: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> => {
    const outcome = await dispatcher.handle({ id: `own-${++seq}`, tool, editor: d.editor.id, args, scopes: [...ALL_SCOPES], client: 'pat:test', deadline_ms: 30_000 });
    if (!outcome) throw new Error('no outcome');
    expect(JSON.stringify(outcome), `${tool} shows the credential`).not.toContain(CREDENTIAL);
    return outcome;
  };
  const refused = async (tool: string, args: Record<string, unknown> = {}): Promise<void> => {
    expect(await handle(tool, args), `${tool} ${JSON.stringify(args)}`).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', own_file: 'config' } });
    expect(readAudit(auditFile, 1)[0]).toMatchObject({ tool, decision: 'own_file', outcome: 'PERMISSION_DENIED' });
  };

  beforeAll(async () => {
    d = await start({ files: { 'notes.txt': 'plain\n' }, open: ['notes.txt'] });
    const env = isolatedEnv();
    config = join(String(env.XDG_CONFIG_HOME), 'vimrelay');
    mkdirSync(config, { recursive: true });
    writeFileSync(join(config, 'credentials.json'), `{\n  "device_credential": "${CREDENTIAL}"\n}\n`);
    const guard = testGuard(OPEN_POLICY, String(env.HOME), ownPlaces(env));
    auditFile = guard.auditFile;
    dispatcher = new Dispatcher({ get: (id) => (id === d.editor.id ? d.editor : undefined) }, guard.guard);
  });
  afterAll(() => d?.stop());

  it('refuses every call that names one, open_file and clear_decorations included, and audits it own_file', async () => {
    const path = join(config, 'credentials.json');
    for (const [tool, args] of [
      ['open_file', { path }],
      ['read_buffer', { buffer: path }],
      ['write_buffer', { buffer: join(config, 'policy.json'), text: '{"rules": []}\n' }],
      ['set_cursor', { buffer: path, line: 1 }],
      ['clear_decorations', { buffer: path }],
      ['get_diagnostics', { buffer: path }],
      ['grep_buffers', { pattern: 'vrd_', buffers: [path] }],
    ] as const) await refused(tool, args);
    // A file it would create there through a symlinked directory (a policy.json, say).
    symlinkSync(config, join(d.cwd, 'settings'));
    await refused('write_buffer', { buffer: 'settings/policy.json', text: '{"rules": []}\n' });
  });

  it('withholds command output that shows a loaded own buffer\'s lines, and refuses commands while one is current', async () => {
    const path = join(config, 'credentials.json');
    // The user has it loaded; notes.txt is current.
    await d.command(`badd ${path}`);
    await d.expr(`bufload(bufnr(${JSON.stringify(path)}))`);
    const run = await handle('run_command', { commands: `echo getbufline(bufnr(${JSON.stringify(path)}), 2)` });
    expect(run).toMatchObject({ ok: true, data: { results: [{ output: '[withheld: never_read]' }] } });
    await d.cursor(path, 1, 0);
    await refused('run_command', { commands: '%print' });
    await refused('send_keys', { keys: 'yy' });
    await d.cursor('notes.txt', 1, 0);
  });
});

const PYRIGHT = SERVERS.find((s) => s.name === 'pyright') as ServerCase;
/** A module in what the agent takes for its config directory, using the function the tests rename. */
const OWN_MODULE = `from shapes.geometry import total_area\n\nTOKEN = "${CREDENTIAL}"\nprint(TOKEN, total_area([]))\n`;

describe.each(DRIVERS)('vimrelay\'s own files in lsp_* results on %s', (editor) => {
  let d: Driver;
  let dispatcher: Dispatcher;
  let auditFile: string;
  let seq = 0;
  const total = { buffer: PYRIGHT.call.file, line: PYRIGHT.call.line, col: PYRIGHT.call.col };
  const handle = async (tool: string, args: Record<string, unknown>): Promise<ToolOutcome> => {
    const outcome = await dispatcher.handle({ id: `own-lsp-${++seq}`, tool, editor: d.editor.id, args, scopes: [...ALL_SCOPES], client: 'pat:test', deadline_ms: 30_000 });
    if (!outcome) throw new Error('no outcome');
    expect(JSON.stringify(outcome), `${tool} shows the own module's text`).not.toContain(CREDENTIAL);
    return outcome;
  };

  beforeAll(async () => {
    d = await lspDriver(editor === 'Neovim' ? 'nvim' : 'ale', PYRIGHT, { files: { 'shapes/vimrelay/tokens.py': OWN_MODULE }, vimNormal: true });
    // The agent's config directory is `shapes/vimrelay` of the project.
    const env: NodeJS.ProcessEnv = { ...isolatedEnv(), XDG_CONFIG_HOME: join(d.cwd, 'shapes') };
    const guard = testGuard(OPEN_POLICY, String(env.HOME), ownPlaces(env));
    auditFile = guard.auditFile;
    dispatcher = new Dispatcher({ get: (id) => (id === d.editor.id ? d.editor : undefined) }, guard.guard);
  }, 90_000);
  afterAll(() => d?.stop());

  it('leaves references, symbols and rename edits in it out, counting them in withheld', async () => {
    const refs = await handle('lsp_references', total);
    expect(refs).toMatchObject({ ok: true, data: { total: 6, withheld: 2 } });
    const symbols = await handle('lsp_symbols', { buffer: PYRIGHT.call.file, query: 'TOKEN' });
    expect(symbols).toMatchObject({ ok: true, data: { symbols: [], withheld: 1 } });
    const preview = await handle('lsp_rename', { ...total, new_name: 'sum_of_areas' });
    expect(preview).toMatchObject({ ok: true, data: { edit_count: 6, withheld: 2 } });
  });

  it('refuses a rename apply that would change it, changing nothing', async () => {
    const before = readFileSync(join(d.cwd, PYRIGHT.call.file), 'utf8');
    const tick = await d.tick(await d.bufnr(PYRIGHT.call.file));
    const apply = await handle('lsp_rename', { ...total, new_name: 'sum_of_areas', apply: true, expected_changedtick: tick });
    expect(apply).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', own_file: 'config', message: expect.stringContaining('tokens.py') } });
    expect(readAudit(auditFile, 1)[0]).toMatchObject({ tool: 'lsp_rename', decision: 'own_file' });
    expect(await d.lines(await d.bufnr(PYRIGHT.call.file))).toEqual(before.replace(/\n$/, '').split('\n'));
    expect(await d.expr(`bufloaded(${JSON.stringify('shapes/vimrelay/tokens.py')})`)).toBe(0);
  });
});
