// End to end over the whole chain: MCP SDK client -> wrangler dev (Worker + Hub) -> the vimrelay
// agent process -> a real headless Neovim holding non-ASCII text.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../protocol/index.ts';
import { isolatedEnv, runCli, startAgentProcess, type AgentProcess } from '../helpers/agent-process.ts';
import { callErr, callOk, connectMcp } from '../helpers/mcp.ts';
import { startNvim, type NvimFixture } from '../helpers/nvim.ts';
import { withRelay, type TestRelay } from '../helpers/relay.ts';

const TEXT = ['# Notes', 'héllo wörld — 日本語 🎉', 'café = "naïve"', 'twice', 'twice', ''].join('\n');

let relay: TestRelay;
let agent: AgentProcess;
let nvim: NvimFixture;
let client: Client;
let editorId: string;

/** The buffer's lines and changedtick, read directly from Neovim. */
async function snapshot(buf = 'notes.md'): Promise<{ lines: string[]; tick: number }> {
  return nvim.lua(
    `local name = ...
     for _, b in ipairs(vim.api.nvim_list_bufs()) do
       if vim.api.nvim_buf_get_name(b):sub(-#name) == name then
         return { lines = vim.api.nvim_buf_get_lines(b, 0, -1, false), tick = vim.api.nvim_buf_get_changedtick(b) }
       end
     end`,
    buf,
  );
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  relay = await withRelay();
  const env = isolatedEnv({ VIMRELAY_OWNER_SECRET: relay.ownerSecret });
  const discover = join(String(env.HOME), 'sockets');
  mkdirSync(discover, { recursive: true });
  expect(runCli(['enroll', '--relay', relay.url, '--name', 'e2e-box'], env).status).toBe(0);
  agent = startAgentProcess(['--relay', relay.url, '--discover-dir', discover], env);
  await agent.waitFor('connected to relay');
  nvim = await startNvim({ files: { 'notes.md': TEXT }, open: ['notes.md'], listen: join(discover, 'nvim.e2e.0') });
  client = await connectMcp(relay.mcpUrl, await relay.mint({ kind: 'access', name: 'e2e' }));
  editorId = await until(async () => {
    const r = await callOk(client, 'list_editors');
    const editors = r.editors as { id: string; pid: number }[];
    return editors.find((e) => e.pid === nvim.pid)?.id;
  }, 'the editor to appear in list_editors');
}, 90_000);

afterAll(async () => {
  await client?.close();
  await agent?.stop();
  await nvim?.stop();
  await relay?.stop();
});

describe('the whole chain', () => {
  it('lists every tool with schemas and annotations', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    for (const t of tools) {
      expect(t.outputSchema?.type).toBe('object');
      expect(t.annotations?.openWorldHint).toBe(false);
      expect(typeof t.annotations?.readOnlyHint).toBe('boolean');
      expect(t.title).toBeTruthy();
    }
  });

  it('lists the editor with its device, kind and cwd', async () => {
    const r = await callOk(client, 'list_editors');
    expect(r.count).toBe(1);
    expect(r.editors).toEqual([
      expect.objectContaining({ id: editorId, device: 'e2e-box', kind: 'nvim', pid: nvim.pid, cwd: nvim.cwd }),
    ]);
    expect(editorId).toBe(`e2e-box/nvim-${nvim.pid}`);
  });

  it('gives a brief state with the buffer and the cursor context', async () => {
    const r = await callOk(client, 'get_state_brief', {});
    expect(r.cwd).toBe(nvim.cwd);
    expect(r.mode).toBe('n');
    const buffers = r.buffers as { path: string | null; changedtick: number }[];
    expect(buffers.some((b) => b.path === join(nvim.cwd, 'notes.md'))).toBe(true);
    const [active] = r.windows as { role: string; path: string; context: { lines: string[] } }[];
    expect(active?.role).toBe('active');
    expect(active?.context.lines).toContain('héllo wörld — 日本語 🎉');
  });

  it('reads unsaved non-ASCII text by path and by number, with a continuation when capped', async () => {
    await nvim.client.command('call setline(1, "# Notes (unsaved)")');
    const whole = await callOk(client, 'read_buffer', { editor: editorId, buffer: 'notes.md' });
    expect(whole.lines).toEqual(['# Notes (unsaved)', 'héllo wörld — 日本語 🎉', 'café = "naïve"', 'twice', 'twice']);
    expect(whole.total_lines).toBe(5);
    expect(whole.changedtick).toBe((await snapshot()).tick);
    const page = await callOk(client, 'read_buffer', { buffer: whole.buf as number, start_line: 2, max_lines: 2 });
    expect(page).toMatchObject({ start_line: 2, end_line: 3, truncated: true, next_start_line: 4 });
    expect(page.lines).toEqual(['héllo wörld — 日本語 🎉', 'café = "naïve"']);
  });

  it('replaces text found exactly once, reporting columns in characters, as one undo step', async () => {
    const before = await snapshot();
    const r = await callOk(client, 'find_and_replace', {
      buffer: 'notes.md',
      old_text: '日本語',
      new_text: 'Nihongo',
      expected_changedtick: before.tick,
    });
    // "héllo wörld — " is 14 characters (and more bytes): 日 starts at column 15.
    expect(r.start).toEqual({ line: 2, col: 15 });
    expect(r.end).toEqual({ line: 2, col: 22 });
    const after = await snapshot();
    expect(after.lines[1]).toBe('héllo wörld — Nihongo 🎉');
    expect(r.changedtick).toBe(after.tick);
    await nvim.client.command('buffer notes.md | undo');
    expect((await snapshot()).lines).toEqual(before.lines);
  });

  it('refuses a stale changedtick and changes nothing', async () => {
    const before = await snapshot();
    const err = await callErr(client, 'find_and_replace', {
      buffer: 'notes.md',
      old_text: 'café',
      new_text: 'tea',
      expected_changedtick: before.tick - 1,
    });
    expect(err.code).toBe('STALE_CHANGEDTICK');
    expect(err.current_changedtick).toBe(before.tick);
    expect(err.hint).toMatch(/read_buffer/);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses zero and two matches, changing nothing', async () => {
    const before = await snapshot();
    expect((await callErr(client, 'find_and_replace', { buffer: 'notes.md', old_text: 'absent', new_text: 'x' })).code).toBe('NO_MATCH');
    const two = await callErr(client, 'find_and_replace', { buffer: 'notes.md', old_text: 'twice', new_text: 'once' });
    expect(two.code).toBe('MULTIPLE_MATCHES');
    expect(two.matches).toEqual([{ line: 4, col: 1 }, { line: 5, col: 1 }]);
    expect(await snapshot()).toEqual(before);
  });

  it('creates a new buffer with write_buffer, and guards an existing one', async () => {
    const created = await callOk(client, 'write_buffer', { buffer: 'draft/new.txt', text: 'first\nsecond — ü\n' });
    expect(created).toMatchObject({ created: true, total_lines: 2, path: join(nvim.cwd, 'draft/new.txt') });
    expect((await snapshot('draft/new.txt')).lines).toEqual(['first', 'second — ü']);

    const before = await snapshot();
    const unguarded = await callErr(client, 'write_buffer', { buffer: 'notes.md', text: 'clobbered' });
    expect(unguarded.code).toBe('INVALID_ARGUMENT');
    expect(unguarded.current_changedtick).toBe(before.tick);
    expect(await snapshot()).toEqual(before);

    const written = await callOk(client, 'write_buffer', { buffer: 'notes.md', text: 'one\ntwo', expected_changedtick: before.tick });
    expect(written).toMatchObject({ created: false, total_lines: 2 });
    expect((await snapshot()).lines).toEqual(['one', 'two']);
    await nvim.client.command('buffer notes.md | undo');
    expect((await snapshot()).lines).toEqual(before.lines);
  });
});

describe('bad input gets a clear error and changes nothing', () => {
  const post = (body: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(relay.mcpUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      body,
    });

  it('every class of bad input', async () => {
    const token = await relay.mint({ kind: 'access', name: 'bad-input' });
    const auth = { Authorization: `Bearer ${token}` };
    const before = await snapshot();

    const malformed = await post('{"jsonrpc": "2.0", "id": 1, "method": ', auth);
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: number } }).error.code).toBe(-32700);

    const oversized = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(2 * 1024 * 1024) } }), auth);
    expect(oversized.status).toBe(413);

    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/no_such_tool/);

    const schema = await callErr(client, 'read_buffer', { start_line: 0, bogus: true });
    expect(schema.code).toBe('INVALID_ARGUMENT');

    const noBuffer = await callErr(client, 'find_and_replace', { buffer: 9999, old_text: 'a', new_text: 'b' });
    expect(noBuffer.code).toBe('BUFFER_NOT_FOUND');
    const noPath = await callErr(client, 'read_buffer', { buffer: 'does/not/exist.txt' });
    expect(noPath.code).toBe('BUFFER_NOT_FOUND');

    const wrongEditor = await callErr(client, 'find_and_replace', { editor: 'elsewhere/nvim-1', old_text: 'one', new_text: 'x' });
    expect(wrongEditor.code).toBe('EDITOR_NOT_FOUND');
    expect(wrongEditor.editors).toEqual([editorId]);

    expect(await snapshot()).toEqual(before);
  });
});

describe('editors that go away', () => {
  it('a killed nvim leaves list_editors, and calls then answer NO_EDITOR', async () => {
    await nvim.kill();
    await until(async () => ((await callOk(client, 'list_editors')).count === 0 ? true : undefined), 'the editor to leave');
    expect((await callErr(client, 'get_state_brief')).code).toBe('NO_EDITOR');
  });
});
