/**
 * A Vim and a Neovim online at once, end to end: the MCP SDK client -> local workerd (Worker +
 * Hub) -> one `vimrelay agent` process -> a real headless Neovim (found by discovery) and a real
 * Vim (plugin/vim, connected to that agent's Vim listener through the agent's XDG directories).
 * Proves that both are listed and addressed by id, that the same sequence of tools gives results
 * of the same shape (and the same content where the editors agree) on each, that a call held up in
 * one editor does not hold up the other, and that a Vim going away (killed, or
 * :VimRelayDisconnect) leaves the list while the Neovim stays. Every result passes through
 * `callOk` (the tool's listed outputSchema) and every error through `callErr` (code and hint).
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, startAgentProcess, type AgentProcess } from '../helpers/agent-process.ts';
import { callErr, callOk, connectMcp, resultOf } from '../helpers/mcp.ts';
import { startNvim, type NvimFixture } from '../helpers/nvim.ts';
import { withRelay, type TestRelay } from '../helpers/relay.ts';
import { startVim, type VimFixture } from '../helpers/vim.ts';
import { waitFor } from '../helpers/wait.ts';

const DEVICE = 'two-editors';
const TEXT = ['# Notes', 'héllo wörld — 日本語 🎉', 'café = "naïve"', 'twice', 'twice', ''].join('\n');
const LINES = TEXT.split('\n').slice(0, -1);

type Kind = 'nvim' | 'vim';

interface Listed {
  id: string;
  device: string;
  kind: Kind;
  pid: number;
  cwd: string;
}

let relay: TestRelay;
let agent: AgentProcess;
let nvim: NvimFixture;
let vim: VimFixture;
let client: Client;
/** The agent's isolated home; the Vim's working directory is inside it. */
let home: string;

async function listed(): Promise<Listed[]> {
  return (await callOk(client, 'list_editors')).editors as Listed[];
}

beforeAll(async () => {
  relay = await withRelay();
  const env = isolatedEnv();
  home = String(env.HOME);
  const sockets = join(home, 'sockets');
  mkdirSync(sockets);
  nvim = await startNvim({ files: { 'notes.md': TEXT }, open: ['notes.md'], listen: join(sockets, 'nvim.e2e.0') });
  const enrolled = runCli(['enroll', '--relay', relay.url, '--name', DEVICE], { ...env, VIMRELAY_OWNER_SECRET: relay.ownerSecret });
  if (enrolled.status !== 0) throw new Error(`enroll failed: ${enrolled.stderr}`);
  agent = startAgentProcess(['--relay', relay.url, '--discover-dir', sockets], env);
  await agent.waitFor('connected to relay');
  const vimCwd = join(home, 'vim-work');
  mkdirSync(vimCwd);
  // The agent's environment: the Vim finds the agent's port and token files through its XDG directories.
  vim = startVim(env, vimCwd, { files: { 'notes.md': TEXT }, open: ['notes.md'], name: 'e2e' });
  client = await connectMcp(relay.mcpUrl, await relay.mint({ kind: 'access', name: 'two-editors' }));
  await waitFor(async () => ((await listed()).length === 2 ? true : undefined), 20_000, () => `both editors in list_editors; the agent logged:\n${agent.output()}`);
}, 90_000);

afterAll(async () => {
  await client?.close();
  await vim?.stop();
  await agent?.stop();
  await nvim?.stop();
  await relay?.stop();
  for (const dir of [home, relay?.dir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs `step` on the Neovim and on the Vim, one after the other, and returns both answers. */
async function onBoth<T>(step: (editor: Listed) => Promise<T>): Promise<{ nvim: T; vim: T }> {
  const editors = await listed();
  const of = (kind: Kind): Listed => {
    const found = editors.find((e) => e.kind === kind);
    if (!found) throw new Error(`no ${kind} in list_editors: ${JSON.stringify(editors)}`);
    return found;
  };
  return { nvim: await step(of('nvim')), vim: await step(of('vim')) };
}

/** Keys whose numbers each editor counts its own way (Vim adds more per change). */
const TICK_KEYS = ['changedtick', 'current_changedtick'];

/**
 * What a result says, with what rightly differs between two editors made neutral: the editor's
 * working directory (each has its own) becomes `<cwd>`, a changedtick becomes its type, and so do
 * the keys in `alsoTyped`; numbers in a message (the ticks it quotes) become `<n>`. Two results
 * that compare equal have the same shape, key for key, and the same content elsewhere.
 */
function comparable(value: unknown, cwd: string, alsoTyped: readonly string[] = []): unknown {
  if (typeof value === 'string') return value.replaceAll(cwd, '<cwd>');
  if (Array.isArray(value)) return value.map((v) => comparable(v, cwd, alsoTyped));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => {
      if (TICK_KEYS.includes(key) || alsoTyped.includes(key)) return [key, `<${typeof v}>`];
      if (key === 'message' && typeof v === 'string') return [key, v.replace(/\d+/g, '<n>')];
      return [key, comparable(v, cwd, alsoTyped)];
    }),
  );
}

/** The two answers of `onBoth`, made comparable. */
function bothComparable(both: { nvim: unknown; vim: unknown }, alsoTyped: readonly string[] = []): { nvim: unknown; vim: unknown } {
  return { nvim: comparable(both.nvim, nvim.cwd, alsoTyped), vim: comparable(both.vim, vim.cwd, alsoTyped) };
}

describe('a Vim and a Neovim online at once through one agent', () => {
  it('lists both, kinds nvim and vim, with ids <device>/<local id>', async () => {
    const editors = await listed();
    expect(editors).toHaveLength(2);
    expect(editors).toContainEqual(expect.objectContaining({ id: `${DEVICE}/nvim-${nvim.pid}`, device: DEVICE, kind: 'nvim', pid: nvim.pid, cwd: nvim.cwd }));
    expect(editors).toContainEqual(expect.objectContaining({ id: `${DEVICE}/vim-${vim.pid}`, device: DEVICE, kind: 'vim', pid: vim.pid, cwd: vim.cwd, name: 'e2e' }));
  });

  it('answers a call without `editor` AMBIGUOUS_EDITOR, listing both ids, and changes nothing', async () => {
    const before = await onBoth((e) => callOk(client, 'read_buffer', { editor: e.id, buffer: 'notes.md' }));
    const err = await callErr(client, 'find_and_replace', { buffer: 'notes.md', old_text: 'café', new_text: 'tea' });
    expect(err.code).toBe('AMBIGUOUS_EDITOR');
    expect([...(err.editors as string[])].sort()).toEqual([`${DEVICE}/nvim-${nvim.pid}`, `${DEVICE}/vim-${vim.pid}`].sort());
    expect(await onBoth((e) => callOk(client, 'read_buffer', { editor: e.id, buffer: 'notes.md' }))).toEqual(before);
  });

  it('takes the local id alone when it is unique', async () => {
    const local = await callOk(client, 'read_buffer', { editor: `vim-${vim.pid}`, buffer: 'notes.md' });
    expect(local.path).toBe(join(vim.cwd, 'notes.md'));
  });
});

describe('the same sequence on each editor, by id: same shape, same content where they agree', () => {
  /** Each editor's last known changedtick of notes.md, by editor kind. */
  const tick: Record<Kind, number> = { nvim: 0, vim: 0 };
  const read = (e: Listed): Promise<Record<string, unknown>> => callOk(client, 'read_buffer', { editor: e.id, buffer: 'notes.md' });

  it('read_buffer: the non-ASCII text, whole', async () => {
    const both = await onBoth(read);
    expect(both.nvim).toMatchObject({ path: join(nvim.cwd, 'notes.md'), lines: LINES, total_lines: 5, truncated: false });
    const { nvim: n, vim: v } = bothComparable(both);
    expect(v).toEqual(n);
    tick.nvim = both.nvim.changedtick as number;
    tick.vim = both.vim.changedtick as number;
  });

  it('find_and_replace: a stale tick is refused with the current one, and changes nothing', async () => {
    const before = await onBoth(read);
    const both = await onBoth((e) =>
      callErr(client, 'find_and_replace', { editor: e.id, buffer: 'notes.md', old_text: '日本語', new_text: 'x', expected_changedtick: tick[e.kind] - 1 }),
    );
    expect(both.nvim).toMatchObject({ code: 'STALE_CHANGEDTICK', current_changedtick: tick.nvim });
    expect(both.vim).toMatchObject({ code: 'STALE_CHANGEDTICK', current_changedtick: tick.vim });
    expect(both.nvim.hint).toMatch(/read_buffer/);
    const { nvim: n, vim: v } = bothComparable(both);
    expect(v).toEqual(n);
    expect(await onBoth(read)).toEqual(before);
  });

  it('find_and_replace: with the current tick, columns in characters', async () => {
    const both = await onBoth((e) =>
      callOk(client, 'find_and_replace', { editor: e.id, buffer: 'notes.md', old_text: '日本語', new_text: 'Nihongo', expected_changedtick: tick[e.kind] }),
    );
    // "héllo wörld — " is 14 characters (and more bytes): 日 starts at column 15.
    expect(both.nvim).toMatchObject({ start: { line: 2, col: 15 }, end: { line: 2, col: 22 } });
    const { nvim: n, vim: v } = bothComparable(both);
    expect(v).toEqual(n);
    const after = await onBoth(read);
    expect(after.nvim.lines).toEqual(['# Notes', 'héllo wörld — Nihongo 🎉', 'café = "naïve"', 'twice', 'twice']);
    expect(after.vim.lines).toEqual(after.nvim.lines);
    expect(after.nvim.changedtick).toBe(both.nvim.changedtick);
    expect(after.vim.changedtick).toBe(both.vim.changedtick);
    tick.nvim = both.nvim.changedtick as number;
    tick.vim = both.vim.changedtick as number;
  });

  it('write_buffer: refuses an existing buffer without the tick, then replaces the whole text', async () => {
    const before = await onBoth(read);
    const unguarded = await onBoth((e) => callErr(client, 'write_buffer', { editor: e.id, buffer: 'notes.md', text: 'clobbered' }));
    expect(unguarded.nvim).toMatchObject({ code: 'INVALID_ARGUMENT', current_changedtick: tick.nvim });
    expect(bothComparable(unguarded).vim).toEqual(bothComparable(unguarded).nvim);
    expect(await onBoth(read)).toEqual(before);

    const both = await onBoth((e) => callOk(client, 'write_buffer', { editor: e.id, buffer: 'notes.md', text: 'one\ntwo — ü\n', expected_changedtick: tick[e.kind] }));
    expect(both.nvim).toMatchObject({ created: false, total_lines: 2 });
    const { nvim: n, vim: v } = bothComparable(both);
    expect(v).toEqual(n);
    const after = await onBoth(read);
    expect(after.nvim.lines).toEqual(['one', 'two — ü']);
    expect(after.vim.lines).toEqual(after.nvim.lines);
  });

  it('undo: two steps restore the text as it was read', async () => {
    const both = await onBoth((e) => callOk(client, 'undo', { editor: e.id, buffer: 'notes.md', steps: 2 }));
    expect(both.nvim).toMatchObject({ changed: true, steps_taken: 2 });
    const { nvim: n, vim: v } = bothComparable(both);
    expect(v).toEqual(n);
    const after = await onBoth(read);
    expect(after.nvim.lines).toEqual(LINES);
    expect(after.vim.lines).toEqual(LINES);
    tick.nvim = after.nvim.changedtick as number;
    tick.vim = after.vim.changedtick as number;
  });

  it('grep_buffers: the same hits, columns in characters', async () => {
    const both = await onBoth((e) => callOk(client, 'grep_buffers', { editor: e.id, pattern: 'wörld' }));
    expect(both.nvim).toMatchObject({ hits: [{ line: 2, col: 7, end_col: 12, text: LINES[1], trimmed: false }], truncated: false, cursor: null });
    const { nvim: n, vim: v } = bothComparable(both);
    expect(v).toEqual(n);
  });

  it('apply_diff: a hunk of non-ASCII text, tick-guarded', async () => {
    const diff = ['--- a/notes.md', '+++ b/notes.md', '@@ -3 +3,2 @@', '-café = "naïve"', '+café = "ünïcode"', '+🎉 added', ''].join('\n');
    const both = await onBoth((e) => callOk(client, 'apply_diff', { editor: e.id, buffer: 'notes.md', diff, expected_changedtick: tick[e.kind] }));
    expect(both.nvim).toMatchObject({ hunks_applied: 1, lines_added: 2, lines_removed: 1, total_lines: 6 });
    const { nvim: n, vim: v } = bothComparable(both);
    expect(v).toEqual(n);
    const after = await onBoth(read);
    expect(after.nvim.lines).toEqual(['# Notes', 'héllo wörld — 日本語 🎉', 'café = "ünïcode"', '🎉 added', 'twice', 'twice']);
    expect(after.vim.lines).toEqual(after.nvim.lines);
  });

  it('set_cursor, then get_state_brief: the same buffers and windows, cursor context included', async () => {
    // On the character after "héllo ", so that the column counts characters; and a start that is
    // the same for both (`vim -es` opens a file on its last line, as Ex does).
    const moved = await onBoth((e) => callOk(client, 'set_cursor', { editor: e.id, buffer: 'notes.md', line: 2, col: 7 }));
    expect(moved.nvim).toMatchObject({ cursor: { line: 2, col: 7 }, switched_buffer: false });
    expect(bothComparable(moved).vim).toEqual(bothComparable(moved).nvim);

    const both = await onBoth((e) => callOk(client, 'get_state_brief', { editor: e.id }));
    expect(both.nvim).toMatchObject({ cwd: nvim.cwd, mode: 'n', modified_buffers: [1] });
    expect(both.vim).toMatchObject({ cwd: vim.cwd, modified_buffers: [1] });
    expect(both.nvim.windows).toEqual([
      expect.objectContaining({ role: 'active', path: join(nvim.cwd, 'notes.md'), cursor: { line: 2, col: 7 }, context: expect.objectContaining({ start_line: 1, lines: expect.arrayContaining(['héllo wörld — 日本語 🎉']) }) }),
    ]);
    // What differs by how the test starts each editor, not by vimrelay: `vim -es` is in Ex mode,
    // and `-u NONE` leaves filetype detection off, which `nvim --clean` turns on.
    const { nvim: n, vim: v } = bothComparable(both, ['mode', 'filetype']);
    expect(v).toEqual(n);
  });
});

describe('no head-of-line blocking across editors', () => {
  /** How each editor's prompt gets its answer: typed into the Neovim; a line on the Vim's stdin (`vim -es` reads prompts there). */
  const answerPrompt: Record<Kind, (text: string) => Promise<void>> = {
    nvim: async (text) => void (await nvim.client.input(`${text}<CR>`)),
    vim: async (text) => vim.ex(text),
  };
  const cwdOf = (kind: Kind): string => (kind === 'nvim' ? nvim.cwd : vim.cwd);

  it.each<[Kind, Kind]>([
    ['nvim', 'vim'],
    ['vim', 'nvim'],
  ])('answers a call to the other editor while the %s waits on a prompt, then finishes the held call', async (busy, other) => {
    const editors = await listed();
    const idOf = (kind: Kind): string => editors.find((e) => e.kind === kind)?.id ?? `no ${kind} listed`;
    const reached = join(cwdOf(busy), `prompt-reached-${busy}`);
    // Held until the prompt is answered below; timeout_ms only bounds it should the test fail.
    const prompting = client.callTool({
      name: 'run_command',
      arguments: { editor: idOf(busy), commands: [`call writefile([], '${reached}')`, `let g:answer = input('Name? ')`], timeout_ms: 25_000 },
    }) as Promise<CallToolResult>;
    // Observed below; this only keeps a failure before that from leaving it unhandled.
    prompting.catch(() => undefined);
    await waitFor(() => (existsSync(reached) || undefined), 20_000, `the ${busy} to reach the prompt`);

    const answered = await callOk(client, 'read_buffer', { editor: idOf(other), buffer: 'notes.md' });
    expect(answered.path).toBe(join(cwdOf(other), 'notes.md'));

    // Only now is the prompt answered: the held call was still running while the other editor answered.
    await answerPrompt[busy]('Ada');
    const held = await resultOf(client, 'run_command', await prompting);
    expect(held.results).toEqual([expect.objectContaining({ index: 1 }), expect.objectContaining({ index: 2 })]);
    const echoed = await callOk(client, 'run_command', { editor: idOf(busy), commands: ['echo g:answer'] });
    expect(echoed.results).toEqual([expect.objectContaining({ output: 'Ada' })]);
  });
});

describe('editors that go away', () => {
  const ids = (): Promise<string[]> => listed().then((editors) => editors.map((e) => e.id).sort());
  const gone = (id: string): Promise<true> =>
    waitFor(async () => (!(await ids()).includes(id) || undefined), 20_000, `${id} to leave list_editors`);

  it(':VimRelayDisconnect removes the Vim while the Neovim stays; :VimRelayConnect brings it back', async () => {
    const vimId = `${DEVICE}/vim-${vim.pid}`;
    vim.ex('VimRelayDisconnect');
    await gone(vimId);
    expect(await ids()).toEqual([`${DEVICE}/nvim-${nvim.pid}`]);
    vim.ex('VimRelayConnect e2e');
    await waitFor(async () => ((await ids()).includes(vimId) || undefined), 20_000, 'the Vim to come back');
    expect((await listed()).find((e) => e.id === vimId)).toMatchObject({ kind: 'vim', name: 'e2e' });
  });

  it('killing the Vim removes it while the Neovim stays; calls without `editor` then go to the Neovim', async () => {
    const vimId = `${DEVICE}/vim-${vim.pid}`;
    await vim.kill();
    await gone(vimId);
    expect(await ids()).toEqual([`${DEVICE}/nvim-${nvim.pid}`]);
    expect((await callErr(client, 'read_buffer', { editor: vimId, buffer: 'notes.md' })).code).toBe('EDITOR_NOT_FOUND');
    const alone = await callOk(client, 'read_buffer', { buffer: 'notes.md' });
    expect(alone.path).toBe(join(nvim.cwd, 'notes.md'));
  });
});
