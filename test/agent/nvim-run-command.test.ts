// run_command on a real Neovim: captured output per command (multi-byte text), stop at the first
// failure with the outputs so far, output caps counted as JSON, prompts interrupted by the CTRL-C
// watchdog, the deadline answering with the prompt hint while the editor stays usable, and a call
// started after its deadline not run at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, LIMITS, PROMPT_TIMEOUT_HINT, RUN_COMMAND_LIMITS } from '../../protocol/index.ts';
import { EditorRegistry } from '../../agent/editors/registry.ts';
import { startBy } from '../../agent/editors/nvim/tools/start-by.ts';
import { Dispatcher } from '../../agent/relay/dispatcher.ts';
import { startEditor, waitFor, type EditorFixture } from './support.ts';

const TEXT = 'héllo wörld — 日本語 🎉';

describe('run_command', () => {
  let f: EditorFixture;
  beforeAll(async () => {
    f = await startEditor({ files: { 'notes.txt': `${TEXT}\nsecond\n` }, open: ['notes.txt'] });
  });
  afterAll(() => f.stop());

  it('runs one command and returns what it printed, multi-byte text intact', async () => {
    const data = await f.ok('run_command', { commands: `echo "${TEXT}"` });
    expect(data).toEqual({ results: [{ index: 1, output: TEXT, output_bytes: Buffer.byteLength(TEXT), truncated: false }], count: 1, output_truncated: false });
  });

  it('runs a list in order, each output apart, changes staying unsaved', async () => {
    const data = await f.ok('run_command', { commands: ['%s/wörld/Welt/', 'echo getline(1)', 'let g:n = 2 | echo g:n * 21', 'setlocal nomodified | setlocal modified'] });
    expect((data.results as { output: string }[]).map((r) => r.output)).toEqual(['', 'héllo Welt — 日本語 🎉', '42', '']);
    expect(data.count).toBe(4);
    expect(await f.lines()).toEqual(['héllo Welt — 日本語 🎉', 'second']);
    expect(await f.nvim.lua('return vim.bo.modified')).toBe(true);
  });

  it('stops at the first failure: which one, Vim\'s error, the outputs before it; the rest never runs', async () => {
    const outcome = await f.call('run_command', { commands: ['echo "first"', 'frobnicate', 'let g:third_ran = 1'] });
    expect(outcome).toMatchObject({
      ok: false,
      error: {
        code: 'EDITOR_ERROR',
        failed_index: 2,
        command: 'frobnicate',
        vim_error: expect.stringContaining('E492'),
        results: [{ index: 1, output: 'first', truncated: false }],
      },
    });
    expect(!outcome.ok && outcome.error.hint).toMatch(/1 before it ran.*1 after it did not run/);
    expect(await f.nvim.lua('return vim.g.third_ran')).toBeNull();
    // A Vimscript error inside an expression fails the same way.
    expect(await f.call('run_command', { commands: 'echo no_such_variable' })).toMatchObject({ ok: false, error: { code: 'EDITOR_ERROR', failed_index: 1, vim_error: expect.stringContaining('E121') } });
  });

  it('caps each output at max_output_bytes, at a character boundary, and says so', async () => {
    const data = await f.ok('run_command', { commands: ['echo repeat("日本", 100)', 'echo "short"'], max_output_bytes: 10 });
    const [long, short] = data.results as { output: string; output_bytes: number; truncated: boolean }[];
    expect(long).toEqual({ index: 1, output: '日本日', output_bytes: 600, truncated: true });
    expect(short).toMatchObject({ output: 'short', truncated: false });
    expect(data.output_truncated).toBe(true);
  });

  it('caps all outputs together, counting them as the JSON they become', async () => {
    const big = `echo repeat('"', ${RUN_COMMAND_LIMITS.maxOutputBytes})`; // each '"' is 2 bytes of JSON
    const data = await f.ok('run_command', { commands: [big, big, 'echo "after"'], max_output_bytes: RUN_COMMAND_LIMITS.maxOutputBytes });
    const results = data.results as { output: string; output_bytes: number; truncated: boolean }[];
    expect(results.map((r) => r.truncated)).toEqual([true, true, true]);
    expect(results[0]?.output_bytes).toBe(RUN_COMMAND_LIMITS.maxOutputBytes);
    const json = results.reduce((n, r) => n + JSON.stringify(r.output).length - 2, 0);
    expect(json).toBeLessThanOrEqual(RUN_COMMAND_LIMITS.totalOutputBytes);
    expect(json).toBeGreaterThan(RUN_COMMAND_LIMITS.totalOutputBytes - 4);
    expect(Buffer.byteLength(JSON.stringify(data))).toBeLessThan(LIMITS.maxResultBytes);
  });

  it('interrupts a command waiting on a prompt after timeout_ms (TIMEOUT), and the editor stays usable', async () => {
    const started = Date.now();
    const outcome = await f.call('run_command', { commands: ['echo "before"', "let g:answer = input('Name? ')", 'let g:after_prompt = 1'], timeout_ms: 300 });
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'TIMEOUT', failed_index: 2, command: "let g:answer = input('Name? ')", results: [{ index: 1, output: 'before' }] },
    });
    expect(!outcome.ok && outcome.error.hint).toMatch(/prompt/);
    expect(Date.now() - started).toBeLessThan(RUN_COMMAND_LIMITS.defaultTimeoutMs);
    expect(await f.nvim.lua('return vim.api.nvim_get_mode().mode')).toBe('n');
    expect(await f.nvim.lua('return vim.g.after_prompt')).toBeNull();
    // getchar() waits for a key the same way.
    expect(await f.call('run_command', { commands: 'call getchar()', timeout_ms: 200 })).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    expect(await f.ok('run_command', { commands: 'echo "still here"' })).toMatchObject({ results: [{ output: 'still here' }] });
  });

  it('captures output while the user is typing a command line, leaving it as it was', async () => {
    await f.nvim.client.input(':let typed = 1');
    expect(await f.nvim.lua('return vim.api.nvim_get_mode().mode')).toBe('c');
    const data = await f.ok('run_command', { commands: [`echo "${TEXT}"`, 'echo 1 + 1'] });
    expect((data.results as { output: string }[]).map((r) => r.output)).toEqual([TEXT, '2']);
    expect(await f.nvim.lua('return vim.fn.getcmdline()')).toBe('let typed = 1');
    await f.nvim.client.input('<Esc>');
    expect(await f.nvim.lua('return vim.api.nvim_get_mode().mode')).toBe('n');
  });

  it('does not run a call the editor could only start after its deadline', async () => {
    const late = await f.nvim.lua(
      'return __vimrelay.call("run_command", { commands = { "let g:late_ran = 1" }, max_output_bytes = 100, total_output_bytes = 100, error_bytes = 100, command_bytes = 100, timeout_ms = 1000, start_by = os.time() - 1 })',
    );
    expect(late).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    expect(await f.nvim.lua('return vim.g.late_ran')).toBeNull();
    expect(startBy(1_000_000)).toBe(Math.ceil((1_000_000 + LIMITS.callDeadlineMs) / 1000));
  });

  it('refuses an empty list and an over-long one before anything runs', async () => {
    expect(await f.call('run_command', { commands: [] })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    const many = Array.from({ length: RUN_COMMAND_LIMITS.maxCommands + 1 }, () => 'let g:many = 1');
    expect(await f.call('run_command', { commands: many })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(await f.nvim.lua('return vim.g.many')).toBeNull();
  });
});

describe('run_command at the deadline', () => {
  let f: EditorFixture;
  let dispatcher: Dispatcher;
  const call = (id: string, args: Record<string, unknown>, deadline_ms: number) =>
    dispatcher.handle({ type: 'call', id, tool: 'run_command', editor: f.editor.id, args, scopes: [...ALL_SCOPES], client: 'test', deadline_ms });
  beforeAll(async () => {
    f = await startEditor();
    const registry = new EditorRegistry();
    registry.add(f.editor);
    dispatcher = new Dispatcher(registry);
  });
  afterAll(() => f.stop());

  it('answers TIMEOUT with the prompt hint when a command blocks past the deadline; later calls go through', async () => {
    // A blocking sleep in Lua: nothing, not even CTRL-C, gets in until it ends.
    const started = Date.now();
    const outcome = await call('sleeping', { commands: 'lua (vim.uv or vim.loop).sleep(1500)' }, 300);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT', hint: PROMPT_TIMEOUT_HINT } });
    expect(await call('after-sleep', { commands: 'echo "free again"' }, 10_000)).toMatchObject({ ok: true, data: { results: [{ output: 'free again' }] } });
  });

  it('answers at the deadline while a prompt waits; Neovim keeps serving calls, and the watchdog ends the prompt', async () => {
    const outcome = await call('prompting', { commands: "let g:name = input('Name? ')", timeout_ms: 1_500 }, 300);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT', hint: PROMPT_TIMEOUT_HINT } });
    expect(await f.nvim.lua('return vim.api.nvim_get_mode().mode')).toBe('c');
    expect(await call('during-prompt', { commands: 'echo "served"' }, 10_000)).toMatchObject({ ok: true, data: { results: [{ output: 'served' }] } });
    await waitFor(async () => ((await f.nvim.lua('return vim.api.nvim_get_mode().mode')) === 'n' ? true : undefined), 5_000, 'the prompt to end');
    expect(await f.nvim.lua('return vim.g.name')).toBeNull();
  });
});
