// "ask" end to end inside the agent, on a real Neovim and a real Vim: a run_command whose class the
// policy file says to ask about goes through the Dispatcher and its CallGuard to the editor's
// prompt, which the test answers by typing, as the user would. o runs the command once; r with a
// reason refuses it with PERMISSION_DENIED carrying the reason; no answer refuses it at the
// deadline with a hint and takes the prompt down; a call cancelled while its prompt is up is
// CANCELLED, audited ask:cancelled (not ask:timeout), its prompt taken down; Ctrl-T, in an editor the user named, appends an allow
// rule for that chosen name to the policy file, and the next call runs without a prompt. Every
// class (read, write, open, save, exec, terminal) can be asked about, and Ctrl-G lets its tool run.
// And by attack: an editor answering its own prompt "allow always, all editors" (or allowing a
// deny-only prompt) through the real notification path and Vim channel message widens nothing;
// Ctrl-T in one of two editors named `work` after their folders lets exec run unasked in that one
// only, for its session, and a rule for a chosen name `work` never covers an unnamed `work`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, PERMISSION_CLASSES, type ToolOutcome } from '../../../protocol/index.ts';
import { readAudit } from '../../../agent/audit/log.ts';
import { readPolicy } from '../../../agent/policy/file.ts';
import type { NvimEditor } from '../../../agent/editors/nvim/editor.ts';
import { Dispatcher } from '../../../agent/calls/dispatcher.ts';
import { testGuard } from '../../helpers/policy.ts';
import { NORMAL_DRIVERS, waitFor, type Driver, type NvimDriver } from '../../helpers/editors.ts';
import { answerPrompt, promptArmed, shown } from '../../helpers/prompt-view.ts';

/**
 * The name the user chose for the editor: a Neovim is named `name` here as :VimRelayName names it
 * (g:vimrelay_name); a Vim takes its name when it connects (the driver's vimName, default 'test').
 */
async function chosenNameOf(d: Driver, name: string): Promise<string> {
  if (d.kind === 'nvim') {
    await d.command(`let g:vimrelay_name = ${JSON.stringify(name)}`);
    await (d.editor as NvimEditor).refresh(AbortSignal.timeout(10_000));
  }
  const chosen = d.editor.chosenName();
  if (chosen === null) throw new Error('the editor has no chosen name');
  return chosen;
}

function promptWith(d: Driver, marker: string): Promise<string[]> {
  return waitFor(async () => {
    const lines = await shown(d);
    return lines?.some((l) => l.includes(marker)) ? lines : undefined;
  }, 10_000, `a prompt showing ${marker}`);
}

describe.each(NORMAL_DRIVERS)('run_command under "ask" on %s', (_kind, start) => {
  let d: Driver;
  let dispatcher: Dispatcher;
  let policyFile: string;
  let auditFile: string;
  let seq = 0;
  const run = (command: string, deadline_ms = 30_000, id = `ask-${++seq}`): Promise<ToolOutcome | undefined> =>
    dispatcher.handle({ id, tool: 'run_command', editor: d.editor.id, args: { commands: command }, scopes: [...ALL_SCOPES], client: 'claude-test', deadline_ms });
  const ran = (name: string): Promise<number> => d.expr<number>(`exists("g:${name}")`);

  beforeAll(async () => {
    d = await start({ files: { 'a.txt': 'alpha\n' }, open: ['a.txt'] });
    const rules = PERMISSION_CLASSES.map((klass) => ({ klass, decision: klass === 'exec' ? ('ask' as const) : ('allow' as const) }));
    const fixture = testGuard({ rules, never_read: [] });
    policyFile = fixture.policyFile;
    auditFile = fixture.auditFile;
    dispatcher = new Dispatcher({ get: (id) => (id === d.editor.id ? d.editor : undefined) }, fixture.guard);
  });
  afterAll(() => d?.stop());

  it('never asks about a call never_read refuses anyway', async () => {
    const rules = PERMISSION_CLASSES.map((klass) => ({ klass, decision: klass === 'exec' ? ('ask' as const) : ('allow' as const) }));
    const strict = new Dispatcher({ get: (id) => (id === d.editor.id ? d.editor : undefined) }, testGuard({ rules, never_read: ['.env*'] }).guard);
    await d.command('edit .env');
    const outcome = await strict.handle({ id: `ask-${++seq}`, tool: 'run_command', editor: d.editor.id, args: { commands: 'let g:leaked = 1' }, scopes: [...ALL_SCOPES], client: 'claude-test', deadline_ms: 30_000 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', glob: '.env*' } });
    expect(await shown(d)).toBeNull();
    expect(await ran('leaked')).toBe(0);
    await d.command('buffer a.txt');
  });

  it('Ctrl-G: the user sees the client, tool and command, and it runs once', async () => {
    const outcome = run('let g:ran_once = 1');
    const lines = await promptWith(d, ':let g:ran_once = 1');
    expect(lines[0]).toBe('vimrelay: claude-test asks to run run_command (exec)');
    expect(lines[1]).toBe(`editor: ${d.editor.info().name}`);
    expect(await ran('ran_once')).toBe(0);
    await answerPrompt(d, 'allow_once');
    expect(await outcome).toMatchObject({ ok: true });
    expect(await ran('ran_once')).toBe(1);
  });

  it('names the client as the relay did, with its id beside the name once another client has that name too', async () => {
    const from = (client: string, command: string): Promise<ToolOutcome | undefined> =>
      dispatcher.handle({ id: `ask-${++seq}`, tool: 'run_command', editor: d.editor.id, args: { commands: command }, scopes: [...ALL_SCOPES], client, client_name: 'MCP CLI Proxy', deadline_ms: 30_000 });
    const first = from('tErIheOV8SX8__6h', 'let g:named_1 = 1');
    expect((await promptWith(d, 'g:named_1'))[0]).toBe('vimrelay: MCP CLI Proxy asks to run run_command (exec)');
    await answerPrompt(d, 'allow_once');
    expect(await first).toMatchObject({ ok: true });
    // Another client takes the same name: neither passes for the other any more.
    const other = from('Impostor000000001', 'let g:named_2 = 1');
    expect((await promptWith(d, 'g:named_2'))[0]).toBe('vimrelay: MCP CLI Proxy (Impostor000000001) asks to run run_command (exec)');
    await answerPrompt(d, 'deny');
    expect(await other).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    const again = from('tErIheOV8SX8__6h', 'let g:named_3 = 1');
    expect((await promptWith(d, 'g:named_3'))[0]).toBe('vimrelay: MCP CLI Proxy (tErIheOV8SX8__6h) asks to run run_command (exec)');
    await answerPrompt(d, 'deny');
    await again;
    expect(readAudit(auditFile, 3).map((e) => [e.client, e.client_name, e.decision])).toEqual([
      ['tErIheOV8SX8__6h', 'MCP CLI Proxy', 'ask:allow_once'],
      ['Impostor000000001', 'MCP CLI Proxy', 'ask:deny'],
      ['tErIheOV8SX8__6h', 'MCP CLI Proxy', 'ask:deny'],
    ]);
  });

  it('r with a reason: PERMISSION_DENIED carrying the reason, and nothing runs', async () => {
    const outcome = run('let g:denied = 1');
    await promptWith(d, ':let g:denied = 1');
    await promptArmed(d);
    await d.type('r');
    await waitFor(async () => ((await d.expr('mode()')) === 'c' ? true : undefined), 10_000, 'the reason prompt');
    await d.type(`use :s instead${d.kind === 'nvim' ? '<CR>' : '\r'}`);
    const result = await outcome;
    expect(result).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', reason: 'use :s instead' } });
    expect(result?.ok === false && result.error.message).toContain('use :s instead');
    expect(await ran('denied')).toBe(0);
  });

  it('no answer: refused at the deadline with a hint, the prompt taken down, nothing run', async () => {
    const outcome = run('let g:unanswered = 1', 1_500);
    await promptWith(d, ':let g:unanswered = 1');
    const result = await outcome;
    expect(result).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', hint: expect.stringMatching(/did not answer within \d+ seconds/) } });
    await waitFor(async () => ((await shown(d)) === null ? true : undefined), 10_000, 'the prompt to close');
    expect(await ran('unanswered')).toBe(0);
  });

  it('cancelled while asked: CANCELLED, audited ask:cancelled, the prompt taken down, nothing run', async () => {
    const outcome = run('let g:cancelled = 1', 30_000, 'ask-cancelled');
    await promptWith(d, ':let g:cancelled = 1');
    dispatcher.cancel('ask-cancelled');
    expect(await outcome).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    expect(readAudit(auditFile, 1)[0]).toMatchObject({ tool: 'run_command', decision: 'ask:cancelled', outcome: 'CANCELLED' });
    await waitFor(async () => ((await shown(d)) === null ? true : undefined), 10_000, 'the prompt to close');
    expect(await ran('cancelled')).toBe(0);
  });

  it('Ctrl-T, in an editor the user named: an allow rule for that chosen name is appended, and the next call runs without a prompt', async () => {
    const name = await chosenNameOf(d, 'proj');
    const outcome = run('let g:always = 1');
    const lines = await promptWith(d, ':let g:always = 1');
    expect(lines).toContain(`[Ctrl-G] allow once   [Ctrl-T] allow always in the editor named "${name}"`);
    await answerPrompt(d, 'allow_always');
    expect(await outcome).toMatchObject({ ok: true });
    expect(readPolicy(policyFile).rules.at(-1)).toEqual({ klass: 'exec', decision: 'allow', chosenName: name });
    // Nobody answers now: were it asked, it would be refused at the deadline.
    expect(await run('let g:unasked = 1')).toMatchObject({ ok: true });
    expect(await ran('unasked')).toBe(1);
  });
});

// Every class can be put on "ask", not only exec: one tool of each, answered "allow once".
describe.each(NORMAL_DRIVERS)('each class under "ask" on %s', (_kind, start) => {
  let d: Driver;
  let seq = 0;
  beforeAll(async () => {
    d = await start({ files: { 'b.txt': 'bravo\n' }, open: ['b.txt'] });
  });
  afterAll(() => d?.stop());

  it.each([
    ['read', 'read_buffer', {}, 'read_buffer (read)'],
    ['write', 'find_and_replace', { old_text: 'bravo', new_text: 'BRAVO' }, '+ BRAVO'],
    ['open', 'open_file', { path: 'c.txt' }, 'c.txt'],
    ['save', 'save_buffer', {}, 'b.txt'],
    ['exec', 'run_command', { commands: 'let g:x = 1' }, ':let g:x = 1'],
    ['terminal', 'send_to_terminal', { text: 'ls' }, 'ls'],
  ] as const)('%s: the prompt shows what %s would do, and Ctrl-G lets it run', async (klass, tool, args, marker) => {
    const rules = PERMISSION_CLASSES.map((k) => ({ klass: k, decision: k === klass ? ('ask' as const) : ('allow' as const) }));
    const dispatcher = new Dispatcher({ get: (id) => (id === d.editor.id ? d.editor : undefined) }, testGuard({ rules, never_read: [] }).guard);
    const withTick = tool === 'find_and_replace' ? { ...args, expected_changedtick: await d.tick(await d.bufnr('b.txt')) } : args;
    const outcome = dispatcher.handle({ id: `class-${++seq}`, tool, editor: d.editor.id, args: withTick, scopes: [...ALL_SCOPES], client: 'claude-test', deadline_ms: 30_000 });
    const lines = await waitFor(async () => {
      const text = await shown(d);
      return text?.some((l) => l.includes(marker)) ? text : undefined;
    }, 10_000, `a prompt showing ${marker}`);
    expect(lines[0]).toBe(`vimrelay: claude-test asks to run ${tool} (${klass})`);
    await answerPrompt(d, 'allow_once');
    const result = await outcome;
    // send_to_terminal finds no terminal here: what matters is that the policy let it run.
    if (klass === 'terminal') expect(result).toMatchObject({ ok: false, error: { code: expect.not.stringMatching(/^PERMISSION_DENIED$/) } });
    else expect(result).toMatchObject({ ok: true });
  });
});

/**
 * Answers the prompt shown in `d` from inside the editor, as a hostile editor (or plugin) would:
 * Neovim through the prompt's own rpcnotify to the agent's channel, Vim through the plugin's
 * channel message. The answers arrive in order; then the prompt is closed (its deny, for an id
 * already answered, is ignored), as the hostile editor would leave nothing on the screen.
 */
async function answerFromInside(d: Driver, answers: unknown[]): Promise<void> {
  if (d.kind === 'nvim') {
    await (d as NvimDriver).nvim.lua('for _, a in pairs(_G.__vimrelay.asks) do for _, x in ipairs(...) do vim.rpcnotify(a.channel, "vimrelay_ask", a.id, x) end vim.api.nvim_win_close(a.win, true) end', answers);
  } else {
    for (const answer of answers) {
      await d.expr(`vimrelay#send({'type': 'ask', 'id': get(popup_getoptions(popup_list()[0]).filter, 'args')[0], 'answer': json_decode(${JSON.stringify(JSON.stringify(answer))})})`);
    }
    await d.expr('popup_close(popup_list()[0])');
  }
}

describe.each(NORMAL_DRIVERS)('a prompt answer never widens the policy beyond its editor, on %s', (_kind, start) => {
  let a: Driver;
  let b: Driver;
  let named: Driver;
  let seq = 0;
  const editors = (): Driver[] => [a, b, named];
  const rules = PERMISSION_CLASSES.map((klass) => ({ klass, decision: klass === 'exec' ? ('ask' as const) : ('allow' as const) }));
  const dispatcherFor = (guard: ReturnType<typeof testGuard>['guard']): Dispatcher =>
    new Dispatcher({ get: (id) => editors().find((d) => d.editor.id === id)?.editor }, guard);
  const exec = (dispatcher: Dispatcher, d: Driver, command: string | string[]): Promise<ToolOutcome | undefined> =>
    dispatcher.handle({ id: `widen-${++seq}`, tool: 'run_command', editor: d.editor.id, args: { commands: command }, scopes: [...ALL_SCOPES], client: 'claude-test', deadline_ms: 30_000 });
  const ran = (d: Driver, name: string): Promise<number> => d.expr<number>(`exists("g:${name}")`);

  beforeAll(async () => {
    // Two editors named `work` after their folders, neither named by the user; and one the user named work.
    const options = { files: { 'a.txt': 'alpha\n' }, open: ['a.txt'], vimDir: 'work' };
    [a, b, named] = await Promise.all([start({ ...options, vimName: '' }), start({ ...options, vimName: '' }), start({ ...options, vimName: 'work' })]);
  });
  afterAll(() => Promise.all(editors().map((d) => d?.stop())));

  it('ignores an editor answering its own prompt "allow always, all editors", or allowing a prompt that offered only deny', async () => {
    const fixture = testGuard({ rules, never_read: [] });
    const dispatcher = dispatcherFor(fixture.guard);
    const before = readPolicy(fixture.policyFile);
    const outcome = exec(dispatcher, a, 'let g:widened = 1');
    await promptWith(a, ':let g:widened = 1');
    await answerFromInside(a, [
      { kind: 'allow_always', scope: 'all' },
      { kind: 'allow_always', scope: 'editor' },
      { kind: 'allow_once', extra: true },
      { kind: 'deny', reason: 'the real answer' },
    ]);
    expect(await outcome).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', reason: 'the real answer' } });
    expect(await ran(a, 'widened')).toBe(0);
    expect(readPolicy(fixture.policyFile)).toEqual(before);
    // A call whose preview is too long to show (a deny-only prompt): an allow from inside is ignored too.
    const long = Array.from({ length: 50 }, (_, i) => `let g:long${i} = '${'x'.repeat(2_500)}'`);
    const refused = exec(dispatcher, a, long);
    await promptWith(a, 'it can only be denied');
    await answerFromInside(a, [{ kind: 'allow_once' }, { kind: 'allow_always' }, { kind: 'deny', reason: 'deny only' }]);
    expect(await refused).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', reason: 'deny only' } });
    expect(await ran(a, 'long0')).toBe(0);
    // The other editor still asks: nothing was allowed for every editor.
    const other = exec(dispatcher, b, 'let g:elsewhere = 1');
    await promptWith(b, ':let g:elsewhere = 1');
    await answerPrompt(b, 'deny');
    expect(await other).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(readPolicy(fixture.policyFile)).toEqual(before);
  });

  it('Ctrl-T in one of two editors named work after their folders: exec runs unasked in that one, for its session only; the other still asks', async () => {
    expect([a.editor.info().name, b.editor.info().name].map((n) => n.replace(/#\d+$/, ''))).toEqual(['work', 'work']);
    expect([a.editor.chosenName(), b.editor.chosenName()]).toEqual([null, null]);
    const fixture = testGuard({ rules, never_read: [] });
    const dispatcher = dispatcherFor(fixture.guard);
    const first = exec(dispatcher, a, 'let g:session = 1');
    const lines = await promptWith(a, ':let g:session = 1');
    expect(lines.some((l) => l.includes('[Ctrl-T] allow in this editor until it disconnects'))).toBe(true);
    await answerPrompt(a, 'allow_always');
    expect(await first).toMatchObject({ ok: true });
    // Nothing written: an unnamed editor has no identity a rule could keep.
    expect(readPolicy(fixture.policyFile).rules).toEqual(rules);
    // Unasked in a (were it asked, nobody would answer before the deadline).
    expect(await exec(dispatcher, a, 'let g:unasked = 1')).toMatchObject({ ok: true });
    expect(await ran(a, 'unasked')).toBe(1);
    // b, named work too, still asks.
    const other = exec(dispatcher, b, 'let g:b_unasked = 1');
    await promptWith(b, ':let g:b_unasked = 1');
    await answerPrompt(b, 'deny');
    expect(await other).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(await ran(b, 'b_unasked')).toBe(0);
    // A deny in the policy still refuses in a, the session's allowance notwithstanding.
    const denying = testGuard({ rules: [...rules, { klass: 'exec', decision: 'deny' }], never_read: [] });
    expect(await exec(dispatcherFor(denying.guard), a, 'let g:denied = 1')).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
  });

  it('a rule for the chosen name work, made by Ctrl-T in the editor the user named work, does not cover the editor named work after its folder', async () => {
    expect(await chosenNameOf(named, 'work')).toBe('work');
    const fixture = testGuard({ rules, never_read: [] });
    const dispatcher = dispatcherFor(fixture.guard);
    const first = exec(dispatcher, named, 'let g:named_always = 1');
    await promptWith(named, ':let g:named_always = 1');
    await answerPrompt(named, 'allow_always');
    expect(await first).toMatchObject({ ok: true });
    expect(readPolicy(fixture.policyFile).rules.at(-1)).toEqual({ klass: 'exec', decision: 'allow', chosenName: 'work' });
    expect(await exec(dispatcher, named, 'let g:named_unasked = 1')).toMatchObject({ ok: true });
    const other = exec(dispatcher, b, 'let g:by_name = 1');
    await promptWith(b, ':let g:by_name = 1');
    await answerPrompt(b, 'deny');
    expect(await other).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(await ran(b, 'by_name')).toBe(0);
  });
});
