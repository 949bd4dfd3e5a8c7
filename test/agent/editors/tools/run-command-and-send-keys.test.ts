// run_command and send_keys, the same cases on a real Neovim and on a real Vim: captured output
// per command (multi-byte text, also while the user is typing a command line, which is left as it
// was), stop at the first failure with the outputs so far, output caps counted as JSON at
// character boundaries, one undo step per call, arguments refused before anything runs; keys in
// key notation with mappings, run to completion with <Esc> first (even mid-insert), the cursor in
// characters, v:errmsg reported and otherwise left alone; a prompt (input(), getchar(), :s///c)
// or a long :sleep interrupted with CTRL-C after timeout_ms (TIMEOUT), the rest not run and the
// editor usable after; a question the command asks, read for longer than Neovim's in-time window,
// waited for (the user's answer, or TIMEOUT at timeout_ms), never EDITOR_BLOCKED; at the call
// deadline, TIMEOUT with the prompt hint, the editor still serving calls and usable again once its
// watchdog or the blocking command ends; a call started after its deadline not run. The Vim runs
// in Normal mode (keys typed through a pipe), as users run it; the prompts only Vim has (confirm()
// and Ex mode's, as in vim -es) come last.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, LIMITS, PROMPT_TIMEOUT_HINT, RUN_COMMAND_LIMITS, SEND_KEYS_LIMITS } from '../../../../protocol/index.ts';
import { EditorRegistry } from '../../../../agent/editors/registry.ts';
import { Dispatcher } from '../../../../agent/calls/dispatcher.ts';
import { WAIT_POLL_MS } from '../../../../agent/editors/blocked.ts';
import { IN_TIME_MS } from '../../../../agent/editors/nvim/in-time.ts';
import { NORMAL_DRIVERS, nvimDriver, vimDriver, vimNormalDriver, waitFor, type Driver, type NvimDriver } from '../../../helpers/editors.ts';
import { testGuard } from '../../../helpers/policy.ts';

/** Resolves once the editor is back in Normal mode (an <Esc> typed into Vim waits 'ttimeoutlen'). */
const normalAgain = (d: Driver): Promise<true> => waitFor(async () => ((await d.expr('mode(1)')) === 'n' ? true : undefined), 5_000, 'Normal mode');

const TEXT = 'héllo wörld — 日本語 🎉';

describe.each(NORMAL_DRIVERS)('run_command and send_keys on %s', (_kind, start) => {
  let d: Driver;
  let buf: number;
  beforeAll(async () => {
    d = await start({ files: { 'notes.txt': `${TEXT}\nsecond\n` }, open: ['notes.txt'] });
    buf = await d.bufnr('notes.txt');
  });
  afterAll(() => d.stop());

  it('runs one command and returns what it printed, multi-byte text intact', async () => {
    const data = await d.ok('run_command', { commands: `echo "${TEXT}"` });
    expect(data).toEqual({ results: [{ index: 1, output: TEXT, output_bytes: Buffer.byteLength(TEXT), truncated: false }], count: 1, output_truncated: false });
  });

  it('runs a list in order, each output apart, the change one undo step and unsaved', async () => {
    const data = await d.ok('run_command', { commands: ['%s/wörld/Welt/', 'echo getline(1)', 'let g:n = 2 | echo g:n * 21', '2s/second/zwei/'] });
    expect((data.results as { output: string }[]).map((r) => r.output.replace(/^\n/, ''))).toEqual([expect.any(String), 'héllo Welt — 日本語 🎉', '42', expect.any(String)]);
    expect(data.count).toBe(4);
    expect(await d.lines(buf)).toEqual(['héllo Welt — 日本語 🎉', 'zwei']);
    expect(await d.expr('&modified')).toBe(1);
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual([TEXT, 'second']);
  });

  it("stops at the first failure: which one, Vim's error, the outputs before it; the rest never runs", async () => {
    const outcome = await d.call('run_command', { commands: ['echo "first"', 'frobnicate', 'let g:third_ran = 1'] });
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'EDITOR_ERROR', failed_index: 2, command: 'frobnicate', vim_error: expect.stringContaining('E492'), results: [{ index: 1, output: 'first', truncated: false }] },
    });
    expect(!outcome.ok && outcome.error.hint).toMatch(/1 before it ran.*1 after it did not run/);
    expect(await d.expr('exists("g:third_ran")')).toBe(0);
    expect(await d.call('run_command', { commands: 'echo no_such_variable' })).toMatchObject({ ok: false, error: { code: 'EDITOR_ERROR', failed_index: 1, vim_error: expect.stringContaining('E121') } });
  });

  it('caps each output at max_output_bytes at a character boundary, and all outputs together as JSON', async () => {
    const data = await d.ok('run_command', { commands: ['echo repeat("日本", 100)', 'echo "short"'], max_output_bytes: 10 });
    expect(data.results).toEqual([
      { index: 1, output: '日本日', output_bytes: 600, truncated: true },
      { index: 2, output: 'short', output_bytes: 5, truncated: false },
    ]);
    expect(data.output_truncated).toBe(true);
    const big = `echo repeat('"', ${RUN_COMMAND_LIMITS.maxOutputBytes})`; // each '"' is 2 bytes of JSON
    const capped = await d.ok('run_command', { commands: [big, big, 'echo "after"'], max_output_bytes: RUN_COMMAND_LIMITS.maxOutputBytes });
    const results = capped.results as { output: string; output_bytes: number; truncated: boolean }[];
    expect(results.map((r) => r.truncated)).toEqual([true, true, true]);
    expect(results[0]?.output_bytes).toBe(RUN_COMMAND_LIMITS.maxOutputBytes);
    const json = results.reduce((n, r) => n + JSON.stringify(r.output).length - 2, 0);
    expect(json).toBeLessThanOrEqual(RUN_COMMAND_LIMITS.totalOutputBytes);
    expect(json).toBeGreaterThan(RUN_COMMAND_LIMITS.totalOutputBytes - 4);
    expect(Buffer.byteLength(JSON.stringify(capped))).toBeLessThan(LIMITS.maxResultBytes);
  });

  it('captures output while the user is typing a command line, leaving it as it was', async () => {
    await d.type(':let typed = 1');
    await waitFor(async () => ((await d.expr('mode(1)')) === 'c' ? true : undefined), 5_000, 'the command line');
    const data = await d.ok('run_command', { commands: [`echo "${TEXT}"`, 'echo 1 + 1'] });
    expect((data.results as { output: string }[]).map((r) => r.output)).toEqual([TEXT, '2']);
    expect(await d.expr('[mode(1), getcmdline()]')).toEqual(['c', 'let typed = 1']);
    await d.type('\x1b');
    await normalAgain(d);
    expect(await d.expr('exists("g:typed")')).toBe(0);
  });

  it('does not run a call the editor could only start after its deadline (start_by)', async () => {
    const params = "{'commands': ['let g:late_ran = 1'], 'max_output_bytes': 100, 'total_output_bytes': 100, 'error_bytes': 100, 'command_bytes': 100, 'timeout_ms': 1000, 'start_by': localtime() * 1000 - 1000}";
    const late = d.kind === 'vim' ? `vimrelay#call('run_command', ${params})` : `luaeval('__vimrelay.latest.call("run_command", _A)', ${params})`;
    expect(await d.expr(late)).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    expect(await d.expr('exists("g:late_ran")')).toBe(0);
    const before = await d.lines(buf);
    const keys = `{'keys': 'ix', 'timeout_ms': 1000, 'error_bytes': 100, 'start_by': localtime() * 1000 - 1000}`;
    expect(await d.expr(d.kind === 'vim' ? `vimrelay#call('send_keys', ${keys})` : `luaeval('__vimrelay.latest.call("send_keys", _A)', ${keys})`)).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    expect(await d.lines(buf)).toEqual(before);
    // Through the adapter, its deadline passed by less than a second: Vim's deadline checks follow
    // the agent's clock, its own reltime() being no wall clock (from Vim 9.0.1411 on).
    const past = { signal: new AbortController().signal, deadline: Date.now() - 300 };
    expect(await d.call('run_command', { commands: ['let g:late_ran = 1'] }, past)).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    expect(await d.call('send_keys', { keys: 'ix' }, past)).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    expect(await d.expr('exists("g:late_ran")')).toBe(0);
    expect(await d.lines(buf)).toEqual(before);
  });

  it('refuses an empty list, an over-long one, and empty or over-long keys, before anything runs', async () => {
    expect(await d.call('run_command', { commands: [] })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    const many = Array.from({ length: RUN_COMMAND_LIMITS.maxCommands + 1 }, () => 'let g:many = 1');
    expect(await d.call('run_command', { commands: many })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await d.expr('exists("g:many")')).toBe(0);
    expect(await d.call('send_keys', { keys: '' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await d.call('send_keys', { keys: 'x'.repeat(SEND_KEYS_LIMITS.keysChars + 1) })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
  });

  it('interrupts a command waiting on a prompt after timeout_ms (TIMEOUT); the rest never runs, the editor stays usable', async () => {
    const started = Date.now();
    const outcome = await d.call('run_command', { commands: ['echo "before"', "let g:answer = input('Name? ')", 'let g:after_prompt = 1'], timeout_ms: 300 });
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'TIMEOUT', failed_index: 2, command: "let g:answer = input('Name? ')", results: [{ index: 1, output: 'before' }] },
    });
    expect(!outcome.ok && outcome.error.hint).toMatch(/prompt.*1 before it ran.*1 after it did not run/s);
    expect(Date.now() - started).toBeLessThan(RUN_COMMAND_LIMITS.defaultTimeoutMs);
    expect(await d.expr('[mode(1), getcmdtype(), exists("g:answer"), exists("g:after_prompt")]')).toEqual(['n', '', 0, 0]);
    // getchar() waits for a key the same way; so does a second prompt after the first.
    expect(await d.call('run_command', { commands: 'let g:key = getchar()', timeout_ms: 200 })).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    expect(await d.expr('exists("g:key")')).toBe(0);
    const two = await d.call('run_command', { commands: ["let g:one = input('One? ') | let g:two = input('Two? ')", 'let g:after_two = 1'], timeout_ms: 200 });
    expect(two).toMatchObject({ ok: false, error: { code: 'TIMEOUT', failed_index: 1 } });
    expect(await d.expr('[getcmdtype(), exists("g:one"), exists("g:after_two")]')).toEqual(['', 0, 0]);
    expect(await d.ok('run_command', { commands: 'echo "still here"' })).toMatchObject({ results: [{ output: 'still here' }] });
  });

  it("quits a :s///c question after timeout_ms (TIMEOUT), the text unchanged, the rest not run, the user's key code timeout kept", async () => {
    const before = await d.lines(buf);
    // Vim's watchdog sets 'ttimeout' and 'ttimeoutlen' 0 while its <Esc> ends the question (util/interrupt.vim).
    const users = await d.expr<[number, number]>('[&ttimeout, &ttimeoutlen]');
    await d.command('set nottimeout ttimeoutlen=777');
    const outcome = await d.call('run_command', { commands: ['%s/e/E/gc', 'let g:after_question = 1'], timeout_ms: 300 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT', failed_index: 1 } });
    expect(await d.expr('[mode(1), exists("g:after_question"), &ttimeout, &ttimeoutlen]')).toEqual(['n', 0, 0, 777]);
    await d.command(`let [&ttimeout, &ttimeoutlen] = ${JSON.stringify(users)}`);
    expect(await d.lines(buf)).toEqual(before);
    expect(await d.ok('run_command', { commands: 'echo "still here"' })).toMatchObject({ results: [{ output: 'still here' }] });
  });

  /** The editor's mode, asked as it answers even at a prompt: Neovim's `nvim_get_mode` (`:help api-fast`); Vim reads its channel there. */
  const modeNow = async (): Promise<string> => (d.kind === 'nvim' ? ((await (d as NvimDriver).nvim.client.request('nvim_get_mode', [])) as { mode: string }).mode : d.expr<string>('mode(1)'));

  it('waits for the answer to a question the command asks after it started, however long the user takes, and reports what it did', async () => {
    await d.setLine(buf, 2, 'question');
    const started = Date.now();
    const outcome = d.call('run_command', { commands: ['2s/q/Q/c', 'let g:after_answer = 1'], timeout_ms: 20_000 });
    // The user reads the question for longer than the window a Neovim request has to start in
    // (in-time.ts), after which the agent asks whether Neovim waits for its user: it does, but on
    // the call's own question, so the call is not EDITOR_BLOCKED ("nothing was sent").
    await waitFor(async () => ((await modeNow()) === 'r?' && Date.now() - started > IN_TIME_MS + 2 * WAIT_POLL_MS ? true : undefined), 10_000, 'the question, read a while');
    await d.type('y');
    expect(await outcome).toMatchObject({ ok: true, data: { count: 2 } });
    expect(await d.lines(buf)).toEqual([expect.any(String), 'Question']);
    expect(await d.expr('g:after_answer')).toBe(1);
    await d.undo(buf);
    await d.setLine(buf, 2, 'second');
  });

  it('answers TIMEOUT, not EDITOR_BLOCKED, when the question the command asked outlasts timeout_ms longer than that window', async () => {
    const before = await d.lines(buf);
    const outcome = await d.call('run_command', { commands: ['%s/e/E/gc', 'let g:after_long_question = 1'], timeout_ms: 2 * IN_TIME_MS });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT', failed_index: 1, command: '%s/e/E/gc' } });
    expect(await d.expr('[mode(1), exists("g:after_long_question")]')).toEqual(['n', 0]);
    expect(await d.lines(buf)).toEqual(before);
  });

  it('send_keys runs keys in key notation after <Esc>, to completion, the cursor in characters', async () => {
    await d.cursor('notes.txt', 1, 0);
    const data = await d.ok('send_keys', { keys: 'ggA ✓<Esc>0f—' });
    expect(data).toMatchObject({ sent: '<Esc>ggA ✓<Esc>0f—', buf, cursor: { line: 1, col: 13 }, errmsg: null });
    expect(await d.lines(buf)).toEqual([`${TEXT} ✓`, 'second']);
    // An insert left open is ended when the keys run out.
    expect(await d.ok('send_keys', { keys: 'jIx<Tab>' })).toMatchObject({ cursor: { line: 2, col: 2 } });
    expect(await d.lines(buf)).toEqual([`${TEXT} ✓`, 'x\tsecond']);
    expect(await d.expr('mode()')).not.toBe('i');
  });

  // Key notation as Neovim's nvim_replace_termcodes reads it, on both editors: what each inserts.
  it.each([
    ['<C-\\><C-N> (leaves Insert mode like <Esc>)', 'ccab<C-\\><C-N>x', 'a'],
    ['<Bslash> and a bare backslash', 'cca<Bslash>b\\c', 'a\\b\\c'],
    ['quotes, and <...> a name Vim does not know', 'cc"<foo>" <x-\\> <a\\\\>', '"<foo>" <x-\\> <a\\\\>'],
    ['<Char-65> and <Tab>', 'cc<Char-65><Tab>1', 'A\t1'],
    // The tool's description: "<lt> for \"<\"".
    ['<lt> as "<", so a <...> name can be typed', 'cc<lt>Esc> <lt>lt>', '<Esc> <lt>'],
  ])('send_keys spells %s as Neovim does', async (_what, keys, line) => {
    const before = (await d.lines(buf))[1] ?? '';
    await d.cursor('notes.txt', 2, 0);
    await d.ok('send_keys', { keys });
    expect((await d.lines(buf))[1]).toBe(line);
    await d.expr(`setline(2, ${JSON.stringify(before)})`);
  });

  it("send_keys reports the error the keys caused, and leaves v:errmsg as it was when they caused none", async () => {
    const data = await d.ok('send_keys', { keys: ':frobnicate<CR>' });
    expect(data.errmsg).toMatch(/^E492/);
    await d.command('let v:errmsg = "the user\'s own error"');
    expect(await d.ok('send_keys', { keys: 'gg' })).toMatchObject({ errmsg: null });
    expect(await d.expr('v:errmsg')).toBe("the user's own error");
  });

  it('send_keys interrupts keys waiting on a prompt after timeout_ms (TIMEOUT); keys that answer it complete', async () => {
    const started = Date.now();
    const outcome = await d.call('send_keys', { keys: ':let g:reply = input("Name? ")<CR>', timeout_ms: 300 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT', sent: '<Esc>:let g:reply = input("Name? ")<CR>', mode: 'n' } });
    expect(!outcome.ok && outcome.error.hint).toMatch(/prompt/);
    expect(Date.now() - started).toBeLessThan(SEND_KEYS_LIMITS.defaultTimeoutMs);
    expect(await d.expr('[mode(1), getcmdtype(), exists("g:reply")]')).toEqual(['n', '', 0]);
    await d.ok('send_keys', { keys: ':let g:reply = input("Name? ")<CR>wörld<CR>' });
    expect(await d.expr('g:reply')).toBe('wörld');
  });

  it('send_keys sends <Esc> first, so that keys act in Normal mode even while the user is inserting', async () => {
    await d.cursor('notes.txt', 1, 0);
    await d.type('A typed');
    await waitFor(async () => ((await d.expr('mode(1)')) === 'i' ? true : undefined), 5_000, 'Insert mode');
    await d.ok('send_keys', { keys: 'u' });
    expect((await d.lines(buf))[0]).not.toContain('typed');
  });

  it('send_keys applies mappings', async () => {
    await d.command('nnoremap <Space>m :let g:mapped = "yes"<CR>');
    await d.ok('send_keys', { keys: '<Space>m' });
    expect(await d.expr('get(g:, "mapped", "no")')).toBe('yes');
  });

  it('send_keys can leave visual mode on', async () => {
    await d.cursor('notes.txt', 1, 0);
    expect(await d.ok('send_keys', { keys: 'Vj' })).toMatchObject({ mode: 'V', cursor: { line: 2, col: 1 } });
    await d.ok('send_keys', { keys: '<Esc>' });
  });

});

// In an editor of its own: one a test left in Insert mode may open the terminal in Terminal-Job mode already.
describe.each(NORMAL_DRIVERS)('send_keys from a terminal window on %s', (_kind, start) => {
  let d: Driver;
  beforeAll(async () => {
    d = await start({ files: { 'notes.txt': 'notes\n' }, open: ['notes.txt'] });
  });
  afterAll(() => d.stop());

  it('leaves Terminal-Job mode first: the keys act in Normal mode, none reaches the job', async () => {
    await d.command(d.kind === 'vim' ? 'terminal ++curwin cat' : 'terminal cat');
    const term = await d.expr<number>('bufnr("%")');
    // Vim's :terminal starts in Terminal-Job mode; Neovim's in Terminal-Normal mode, left with `i` as a user would.
    if (d.kind === 'nvim') await d.type('i');
    await waitFor(async () => ((await d.expr('mode(1)')) === 't' ? true : undefined), 5_000, 'Terminal-Job mode');
    const data = await d.ok('send_keys', { keys: ':let g:from_keys = "ran"<CR>' });
    expect(await d.expr('get(g:, "from_keys", "not run")')).toBe('ran');
    expect(data.mode).not.toBe('t');
    const shown = d.kind === 'vim' ? `join(map(range(1, term_getsize(${term})[0]), 'term_getline(${term}, v:val)'))` : `join(getbufline(${term}, 1, '$'))`;
    expect(await d.expr<string>(shown)).not.toContain('from_keys');
  });
});

// The Vim here runs in Ex mode (vim -es): an interrupted :sleep leaves its CTRL-C to Normal mode
// (on a terminal, Vim then says how to quit), and a Vim in Normal mode reading keys from a pipe
// quits on a CTRL-C.
describe.each([
  ['Neovim', nvimDriver, 'lua (vim.uv or vim.loop).sleep(1500)'],
  ['Vim', vimDriver, "call system('sleep 1.5')"],
] as const)('a long :sleep, and run_command at the deadline, on %s', (_kind, start, blocking) => {
  let d: Driver;
  let dispatcher: Dispatcher;
  const call = (id: string, args: Record<string, unknown>, deadline_ms: number) =>
    dispatcher.handle({ id, tool: 'run_command', editor: d.editor.id, args, scopes: [...ALL_SCOPES], client: 'test', deadline_ms });
  beforeAll(async () => {
    d = await start({ files: {}, open: [] });
    const registry = new EditorRegistry();
    registry.add(d.editor);
    dispatcher = new Dispatcher(registry, testGuard().guard);
  });
  afterAll(() => d.stop());

  it('interrupts a long :sleep after timeout_ms (TIMEOUT); the rest never runs', async () => {
    const outcome = await d.call('run_command', { commands: ['sleep 20', 'let g:after_sleep = 1'], timeout_ms: 300 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT', failed_index: 1, vim_error: 'Interrupted (CTRL-C) after 300 ms.' } });
    expect(await d.expr('exists("g:after_sleep")')).toBe(0);
  });

  it('answers TIMEOUT with the prompt hint when a command blocks past the deadline; later calls go through', async () => {
    // A wait nothing interrupts, not even CTRL-C, until it ends.
    const started = Date.now();
    const outcome = await call('blocking', { commands: blocking }, 300);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT', hint: PROMPT_TIMEOUT_HINT } });
    expect(await call('after-blocking', { commands: 'echo "free again"' }, 10_000)).toMatchObject({ ok: true, data: { results: [{ output: 'free again' }] } });
  });

  it('answers at the deadline while a prompt waits; the editor keeps serving calls, and the watchdog ends the prompt', async () => {
    // The watchdog's timeout_ms is far past the deadline, so that the checks below run while the
    // prompt still waits, however loaded the machine.
    const outcome = await call('prompting', { commands: "let g:name = input('Name? ')", timeout_ms: 5_000 }, 300);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT', hint: PROMPT_TIMEOUT_HINT } });
    expect(await d.expr('getcmdtype()')).toBe('@');
    expect(await call('during-prompt', { commands: 'echo "served"' }, 10_000)).toMatchObject({ ok: true, data: { results: [{ output: 'served' }] } });
    // A request that the editor is evaluating when the watchdog's CTRL-C lands is interrupted with
    // it, as a user's would be: such a poll just looks again.
    const cmdtype = (): Promise<string | undefined> =>
      d.expr<string>('getcmdtype()').catch((err: unknown) => {
        if (/Keyboard interrupt|Interrupted/.test(String(err))) return undefined;
        throw err;
      });
    await waitFor(async () => ((await cmdtype()) === '' ? true : undefined), 15_000, 'the prompt to end');
    expect(await d.expr('get(g:, "name", "")')).toBe('');
    expect(await call('after-prompt', { commands: 'echo "usable"' }, 10_000)).toMatchObject({ ok: true, data: { results: [{ output: 'usable' }] } });
  });
});

// Vim only. Neovim without a UI asks no confirm() question; a Vim in Ex mode (vim -e, or -es as
// the other *-both suites run it) reads an input() answer as a line.
describe('prompts only Vim has', () => {
  let normal: Driver;
  let ex: Driver;
  beforeAll(async () => {
    [normal, ex] = await Promise.all([vimNormalDriver({ files: {}, open: [] }), vimDriver({ files: {}, open: [] })]);
  });
  afterAll(() => Promise.all([normal.stop(), ex.stop()]));

  it('quits a confirm() question after timeout_ms (TIMEOUT); the rest never runs', async () => {
    const outcome = await normal.call('run_command', { commands: ['call confirm("Sure?", "&Yes\\n&No")', 'let g:after_confirm = 1'], timeout_ms: 300 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT', failed_index: 1 } });
    expect(await normal.expr('[mode(1), exists("g:after_confirm")]')).toEqual(['n', 0]);
  });

  it('answers an input() prompt in Ex mode with an empty line after timeout_ms (TIMEOUT); the rest never runs', async () => {
    const mode = await ex.expr('mode(1)');
    const outcome = await ex.call('run_command', { commands: ["let g:answer = input('Name? ')", 'let g:after_prompt = 1'], timeout_ms: 300 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT', failed_index: 1 } });
    expect(await ex.expr('[mode(1), getcmdtype(), g:answer, exists("g:after_prompt")]')).toEqual([mode, '', '', 0]);
    expect(await ex.ok('run_command', { commands: 'echo "still here"' })).toMatchObject({ results: [{ output: 'still here' }] });
  });
});
