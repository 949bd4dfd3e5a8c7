// The policy enforced through the real Dispatcher on a real Neovim and a real Vim: each
// permission class under allow and under deny (refused before the tool runs, naming the rule and
// the CLI that changes it), a path rule, the token's scopes as an upper bound even when the policy
// allows, an invalid policy file refusing every call, and one audit line per call holding a digest
// of the arguments, never the arguments (a secret written in them is absent from the log). Then
// the CLI as real processes: `vimrelay allow` reaching a running guard, `rules`, `log`, and
// `serve` refusing to start with an invalid policy file.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, PERMISSION_CLASSES, toolByName, type PermissionClass, type ToolOutcome } from '../../../protocol/index.ts';
import { argsDigest, readAudit } from '../../../agent/audit/log.ts';
import { paths } from '../../../agent/config/paths.ts';
import { writePolicy, type Policy } from '../../../agent/policy/file.ts';
import { ownPlaces } from '../../../agent/policy/own-files.ts';
import { openCallGuard } from '../../../agent/policy/setup.ts';
import type { Decision } from '../../../agent/policy/types.ts';
import { Dispatcher } from '../../../agent/calls/dispatcher.ts';
import { isolatedEnv, runCli } from '../../helpers/agent-process.ts';
import { permissivePolicy, testGuard } from '../../helpers/policy.ts';
import { type Driver, DRIVERS, nvimDriver, replaceLines } from '../../helpers/editors.ts';

const SECRET = 'sk-live-DO-NOT-LOG-4c1d';

/** One call per class; the write carries the secret that must never reach the audit log. */
const CALLS: Record<PermissionClass, { tool: string; args: Record<string, unknown> }> = {
  read: { tool: 'read_buffer', args: { buffer: 'a.txt' } },
  write: { tool: 'find_and_replace', args: { buffer: 'a.txt', old_text: 'alpha', new_text: `token = ${SECRET}` } },
  open: { tool: 'open_file', args: { path: 'b.txt' } },
  save: { tool: 'save_buffer', args: { buffer: 'a.txt' } },
  exec: { tool: 'run_command', args: { commands: 'let g:exec_ran = 1' } },
  terminal: { tool: 'send_to_terminal', args: { text: 'echo hi' } },
};

const everyClass = (decision: Decision): Policy => ({ rules: PERMISSION_CLASSES.map((klass) => ({ klass, decision })), never_read: [] });

describe.each(DRIVERS)('the policy on %s', (_kind, start) => {
  let d: Driver;
  let dispatcher: Dispatcher;
  let policyFile: string;
  let auditFile: string;
  let seq = 0;
  const handle = async (tool: string, args: Record<string, unknown>, scopes: readonly string[] = ALL_SCOPES): Promise<ToolOutcome> => {
    const outcome = await dispatcher.handle({ id: `p-${++seq}`, tool, editor: d.editor.id, args, scopes: [...scopes], client: 'pat:test', deadline_ms: 20_000 });
    if (!outcome) throw new Error('no outcome');
    return outcome;
  };
  const lastAudit = () => readAudit(auditFile, 1)[0];

  beforeAll(async () => {
    d = await start({ files: { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' }, open: ['a.txt'] });
    const fixture = testGuard(everyClass('allow'));
    ({ policyFile, auditFile } = fixture);
    dispatcher = new Dispatcher({ get: (id) => (id === d.editor.id ? d.editor : undefined) }, fixture.guard);
  });
  afterAll(() => d?.stop());

  /** a.txt as the fixture wrote it and no call has run, whichever tests ran before. */
  const fresh = async (): Promise<void> => {
    await replaceLines(d, await d.bufnr('a.txt'), ['alpha']);
    await d.command('unlet! g:exec_ran');
  };

  it.each(PERMISSION_CLASSES)('denies %s calls before they run, naming the rule and the CLI', async (klass) => {
    writePolicy(policyFile, everyClass('deny'));
    await fresh();
    const before = await d.lines(await d.bufnr('a.txt'));
    const { tool, args } = CALLS[klass];
    expect(toolByName(tool)?.permission).toBe(klass);
    const outcome = await handle(tool, args);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', rule: `${klass} deny` } });
    if (outcome.ok) return;
    expect(outcome.error.hint).toContain(`vimrelay allow ${klass}`);
    expect(await d.lines(await d.bufnr('a.txt'))).toEqual(before);
    expect(await d.expr('exists("g:exec_ran")')).toBe(0);
    expect(lastAudit()).toMatchObject({ client: 'pat:test', editor: d.editor.id, tool, decision: 'deny', outcome: 'PERMISSION_DENIED', args_digest: argsDigest(args) });
  });

  it.each(PERMISSION_CLASSES)('runs %s calls the policy allows', async (klass) => {
    writePolicy(policyFile, everyClass('allow'));
    await fresh();
    const { tool, args } = CALLS[klass];
    const outcome = await handle(tool, args);
    // No terminal is open, so send_to_terminal fails in the editor: it ran, it was not refused.
    if (klass === 'terminal') expect(outcome).toMatchObject({ ok: false, error: { code: expect.not.stringMatching(/^PERMISSION_DENIED$/) as unknown } });
    else expect(outcome).toMatchObject({ ok: true });
    expect(lastAudit()).toMatchObject({ tool, decision: 'allow', outcome: outcome.ok ? 'ok' : outcome.error.code, args_digest: argsDigest(args) });
  });

  it('leaves the effects of allowed calls in the editor', async () => {
    writePolicy(policyFile, everyClass('allow'));
    await fresh();
    for (const klass of ['write', 'exec'] as const) expect(await handle(CALLS[klass].tool, CALLS[klass].args)).toMatchObject({ ok: true });
    expect(await d.lines(await d.bufnr('a.txt'))).toEqual([`token = ${SECRET}`]);
    expect(await d.expr('g:exec_ran')).toBe(1);
  });

  it('applies path rules to the files a call addresses', async () => {
    writePolicy(policyFile, { rules: [...everyClass('allow').rules, { klass: 'write', decision: 'deny', path: 'b.*' }], never_read: [] });
    await fresh();
    expect(await handle('open_file', { path: 'b.txt' })).toMatchObject({ ok: true });
    expect(await handle('find_and_replace', { buffer: 'a.txt', old_text: 'alpha', new_text: 'key' })).toMatchObject({ ok: true });
    expect(await handle('find_and_replace', { buffer: 'b.txt', old_text: 'beta', new_text: 'two' })).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', rule: 'write deny --path b.*' } });
    expect(await d.lines(await d.bufnr('b.txt'))).toEqual(['beta']);
  });

  it('keeps the token scopes as an upper bound when the policy allows everything', async () => {
    writePolicy(policyFile, everyClass('allow'));
    const outcome = await handle('run_command', { commands: 'let g:scope_ran = 1' }, ALL_SCOPES.filter((s) => s !== 'exec'));
    expect(outcome).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', required_scope: 'exec' } });
    expect(await d.expr('exists("g:scope_ran")')).toBe(0);
    expect(lastAudit()).toMatchObject({ tool: 'run_command', decision: 'scope', outcome: 'PERMISSION_DENIED' });
  });

  it('refuses every call while the policy file is invalid', async () => {
    writeFileSync(policyFile, '{ "rules": [ { "class": "read", "decision": "sometimes" } ] }');
    expect(await handle('read_buffer', { buffer: 'a.txt' })).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(lastAudit()).toMatchObject({ tool: 'read_buffer', decision: 'deny', outcome: 'PERMISSION_DENIED' });
    writePolicy(policyFile, everyClass('allow'));
    expect(await handle('read_buffer', { buffer: 'a.txt' })).toMatchObject({ ok: true });
  });

  it('audits every call as a digest, never its arguments', () => {
    const text = readFileSync(auditFile, 'utf8');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('g:exec_ran');
    const entries = readAudit(auditFile, 1_000);
    expect(entries.length).toBe(seq);
    for (const e of entries) expect(Object.keys(e).sort()).toEqual(['args_digest', 'client', 'decision', 'duration_ms', 'editor', 'outcome', 'time', 'tool']);
  });
});

describe('the policy CLI', () => {
  let d: Driver;
  let env: NodeJS.ProcessEnv;
  let dispatcher: Dispatcher;
  let seq = 0;
  const exec = async (): Promise<ToolOutcome | undefined> =>
    dispatcher.handle({ id: `c-${++seq}`, tool: 'run_command', editor: d.editor.id, args: { commands: `let g:cli_${seq} = 1` }, scopes: [...ALL_SCOPES], client: 'local:stdio', deadline_ms: 20_000 });

  /** Each test starts from the policy it names, whatever the tests before it left. */
  const startWith = (rules: Policy['rules']): void => writePolicy(paths(env).policy, { rules, never_read: [] });

  beforeAll(async () => {
    d = await nvimDriver({ files: { 'a.txt': 'alpha\n' }, open: ['a.txt'] });
    env = isolatedEnv();
    const p = paths(env);
    dispatcher = new Dispatcher({ get: (id) => (id === d.editor.id ? d.editor : undefined) }, openCallGuard(p, ownPlaces(env), String(env.HOME)));
  });
  afterAll(() => d?.stop());

  it('`vimrelay allow` takes effect on a running guard; `rules` lists it', async () => {
    startWith([{ klass: 'exec', decision: 'deny' }]);
    expect(await exec()).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', rule: 'exec deny' } });
    const name = d.editor.info().name;
    const added = runCli(['allow', 'exec', '--editor', name], env);
    expect(added.stderr).toBe('');
    expect(added.status).toBe(0);
    expect(await exec()).toMatchObject({ ok: true });
    expect(runCli(['allow', 'shell'], env)).toMatchObject({ status: 1, stderr: expect.stringContaining('unknown class "shell"') as unknown });

    const rules = runCli(['rules'], env);
    expect(rules.status).toBe(0);
    expect(rules.stdout).toContain('  exec     ask');
    expect(rules.stdout).toContain('   1. exec deny\n');
    expect(rules.stdout).toContain(`   2. exec allow --editor ${name}\n`);
    expect(rules.stdout).toContain('never_read: none');
    expect(rules.stdout).toContain('always withheld, whatever the policy says: vimrelay\'s own files');
  });

  it('`vimrelay log` shows the calls as a table', async () => {
    startWith([{ klass: 'exec', decision: 'deny' }]);
    expect(await exec()).toMatchObject({ ok: false });
    startWith([{ klass: 'exec', decision: 'allow' }]);
    expect(await exec()).toMatchObject({ ok: true });
    const log = runCli(['log', '-n', '2'], env);
    expect(log.status).toBe(0);
    const lines = log.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^TIME +CLIENT +EDITOR +TOOL +DECISION +OUTCOME +DURATION$/);
    expect(lines[1]).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\S+Z +local:stdio +${d.editor.id} +run_command +deny +PERMISSION_DENIED +\\d+ ms$`));
    expect(lines[2]).toMatch(/ +allow +ok +\d+ ms$/);
    // Columns line up: every row has DECISION at the same offset.
    expect(lines[1]?.indexOf('deny')).toBe(lines[0]?.indexOf('DECISION'));
  });

  it('`vimrelay log` names each client as prompts do: its name, its id beside a name two clients share, escaped', async () => {
    startWith([{ klass: 'exec', decision: 'allow' }]);
    const from = (client: string, client_name?: string): Promise<ToolOutcome | undefined> =>
      dispatcher.handle({ id: `c-${++seq}`, tool: 'run_command', editor: d.editor.id, args: { commands: `let g:cli_${seq} = 1` }, scopes: [...ALL_SCOPES], client, ...(client_name ? { client_name } : {}), deadline_ms: 20_000 });
    await from('local:stdio', 'Claude Code');
    await from('pat:laptop', 'laptop (personal access token)');
    await from('a1b2c3', 'Twin');
    await from('d4e5f6', 'Twin');
    await from('x', 'evil\u001b[2J');
    await from('older-relay');
    const log = runCli(['log', '-n', '6'], env);
    expect(log.status).toBe(0);
    const clients = log.stdout.trimEnd().split('\n').slice(1).map((line) => line.split(/ {2,}/)[1]);
    expect(clients).toEqual(['Claude Code', 'laptop (personal access token)', 'Twin (a1b2c3)', 'Twin (d4e5f6)', 'evil\\x1b[2J', 'older-relay']);
  });

  it('`vimrelay rules --remove N` takes rule N out, on a running guard too, and refuses a number it does not list', async () => {
    const name = d.editor.info().name;
    startWith([
      { klass: 'exec', decision: 'deny' },
      { klass: 'exec', decision: 'allow', editor: name },
    ]);
    expect(await exec()).toMatchObject({ ok: true });
    runCli(['allow', 'save'], env);
    // Rules now: 1. exec deny, 2. exec allow --editor <name>, 3. save allow.
    const removed = runCli(['rules', '--remove', '2'], env);
    expect(removed.stderr).toBe('');
    expect(removed.status).toBe(0);
    expect(removed.stdout).toContain(`removed: exec allow --editor ${name}\n`);
    expect(removed.stdout).toContain('   1. exec deny\n');
    expect(removed.stdout).toContain('   2. save allow\n');
    expect(removed.stdout).not.toContain('   3.');
    expect(await exec()).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', rule: 'exec deny' } });

    for (const bad of ['3', '0', 'two', '1.5']) {
      const r = runCli(['rules', '--remove', bad], env);
      expect([bad, r.status]).toEqual([bad, 1]);
      expect(r.stderr).toMatch(/there is no rule 3: the rules are numbered 1 to 2|usage: vimrelay rules \[--remove N\]/);
    }
    expect(runCli(['rules'], env).stdout).toContain('   2. save allow\n');
    expect(runCli(['rules', '--remove', '2'], env).status).toBe(0);
    const last = runCli(['rules', '--remove', '1'], env).stdout;
    expect(last).toContain('removed: exec deny\n');
    expect(last).toContain('rules: none\n');
    expect(runCli(['rules', '--remove', '1'], env)).toMatchObject({ status: 1, stderr: expect.stringContaining('there is no rule 1: the policy has no rules') as unknown });
  });

  it('`vimrelay serve` refuses to start with an invalid policy file, naming it', () => {
    const bad = isolatedEnv();
    const file = paths(bad).policy;
    writeFileSync(file, '{ "rules": [ { "class": "exec" } ] }');
    const run = runCli(['serve', '--stdio', '--discover-dir', join(String(bad.XDG_RUNTIME_DIR))], bad);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(file);
    expect(run.stderr).toContain('rules[0].decision');
    expect(runCli(['rules'], bad)).toMatchObject({ status: 1, stderr: expect.stringContaining(file) as unknown });
  });
});

describe('testGuard', () => {
  it('is permissive by default', () => {
    expect(permissivePolicy().rules.map((r) => r.decision)).toEqual(PERMISSION_CLASSES.map(() => 'allow'));
  });
});
