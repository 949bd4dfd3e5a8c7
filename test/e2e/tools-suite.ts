/**
 * The end-to-end behaviour of the tools, written once and run over every chain (chains.ts) and
 * both protocol eras (a 2026-07-28 client and a 2025 `initialize` client, each with its own
 * chain): the relay, `vimrelay serve --http` and `vimrelay serve --stdio` must behave the same in
 * both. Each `tools-<chain>.test.ts` file calls `describeTools(kind)`; one file per chain lets
 * vitest run them side by side. Every successful result passes through `callOk`, which validates it against
 * the tool's listed outputSchema; every failure through `callErr`, which requires a code and a hint.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listedTool, TOOLS } from '../../protocol/index.ts';
import type { McpEra } from '../../protocol/mcp-server.ts';
import { callErr, callOk, ERAS, errorOf, resultOf } from '../helpers/mcp.ts';
import { postAlone, type AloneAnswer, type AloneOptions } from '../helpers/post-alone.ts';
import { waitFor } from '../helpers/wait.ts';
import { START_CHAIN, type Chain, type ChainKind } from './chains.ts';

const TEXT = ['# Notes', 'héllo wörld — 日本語 🎉', 'café = "naïve"', 'twice', 'twice', ''].join('\n');

/** Arguments for the read-only sweep, for tools that cannot be called with none. */
const SWEEP_ARGS: Record<string, Record<string, unknown>> = { grep_buffers: { pattern: 'twice' } };

/** The suite over one chain, once per era. */
export function describeTools(kind: ChainKind): void {
  for (const era of ERAS) describe(`${era} era`, () => describeToolsIn(kind, era));
}

function describeToolsIn(kind: ChainKind, era: McpEra): void {
  let chain: Chain;

  /** The buffer's lines and changedtick, read directly from Neovim. */
  async function snapshot(buf = 'notes.md'): Promise<{ lines: string[]; tick: number }> {
    return chain.nvim.lua(
      `local name = ...
       for _, b in ipairs(vim.api.nvim_list_bufs()) do
         if vim.api.nvim_buf_get_name(b):sub(-#name) == name then
           return { lines = vim.api.nvim_buf_get_lines(b, 0, -1, false), tick = vim.api.nvim_buf_get_changedtick(b) }
         end
       end`,
      buf,
    );
  }

  beforeAll(async () => {
    chain = await START_CHAIN[kind]({ files: { 'notes.md': TEXT }, open: ['notes.md'], era });
  }, 90_000);

  afterAll(async () => {
    await chain?.stop();
  });

  describe(`the tools, over ${kind}`, () => {
    it('initializes as vimrelay, with instructions', () => {
      expect(chain.client.getProtocolEra()).toBe(era);
      expect(chain.client.getServerVersion()?.name).toBe('vimrelay');
      expect(chain.client.getServerCapabilities()?.tools).toBeDefined();
      expect(chain.client.getInstructions()).toMatch(/list_editors/);
    });

    it('lists the same catalog, schemas and annotations included', async () => {
      const { tools } = await chain.client.listTools();
      expect(tools).toEqual(TOOLS.map(listedTool));
    });

    it('lists the editor with its device, kind and cwd', async () => {
      const r = await callOk(chain.client, 'list_editors');
      expect(r.count).toBe(1);
      expect(r.editors).toEqual([
        expect.objectContaining({ id: chain.editorId, device: chain.device, kind: 'nvim', pid: chain.nvim.pid, cwd: chain.nvim.cwd }),
      ]);
      expect(chain.editorId).toBe(`${chain.device}/nvim-${chain.nvim.pid}`);
    });

    it('takes the full id or the local id as `editor`', async () => {
      const full = await callOk(chain.client, 'read_buffer', { editor: chain.editorId, buffer: 'notes.md' });
      const local = await callOk(chain.client, 'read_buffer', { editor: `nvim-${chain.nvim.pid}`, buffer: 'notes.md' });
      expect(local).toEqual(full);
    });

    it('gives a brief state with the buffer and the cursor context', async () => {
      const r = await callOk(chain.client, 'get_state_brief', {});
      expect(r.cwd).toBe(chain.nvim.cwd);
      expect(r.mode).toBe('n');
      const buffers = r.buffers as { path: string | null; changedtick: number }[];
      expect(buffers.some((b) => b.path === join(chain.nvim.cwd, 'notes.md'))).toBe(true);
      const [active] = r.windows as { role: string; path: string; context: { lines: string[] } }[];
      expect(active?.role).toBe('active');
      expect(active?.context.lines).toContain('héllo wörld — 日本語 🎉');
    });

    it('answers every read-only tool with a result that fits its schema, or a clear error, changing nothing', async () => {
      const before = await snapshot();
      const readOnly = TOOLS.filter((t) => t.annotations.readOnlyHint && t.routing === 'editor');
      expect(readOnly.length).toBeGreaterThan(0);
      for (const tool of readOnly) {
        const res = (await chain.client.callTool({ name: tool.name, arguments: SWEEP_ARGS[tool.name] ?? {} })) as CallToolResult;
        // INTERNAL is what the server answers when a result does not fit its schema (checkOutput).
        if (res.isError) expect(errorOf(tool.name, res).code, `${tool.name}: ${JSON.stringify(res.content)}`).not.toBe('INTERNAL');
        else await resultOf(chain.client, tool.name, res);
      }
      expect(await snapshot()).toEqual(before);
    });

    it('reads unsaved non-ASCII text by path and by number, with a continuation when capped', async () => {
      await chain.nvim.client.command('call setline(1, "# Notes (unsaved)")');
      const whole = await callOk(chain.client, 'read_buffer', { editor: chain.editorId, buffer: 'notes.md' });
      expect(whole.lines).toEqual(['# Notes (unsaved)', 'héllo wörld — 日本語 🎉', 'café = "naïve"', 'twice', 'twice']);
      expect(whole.total_lines).toBe(5);
      expect(whole.changedtick).toBe((await snapshot()).tick);
      const page = await callOk(chain.client, 'read_buffer', { buffer: whole.buf as number, start_line: 2, max_lines: 2 });
      expect(page).toMatchObject({ start_line: 2, end_line: 3, truncated: true, next_start_line: 4 });
      expect(page.lines).toEqual(['héllo wörld — 日本語 🎉', 'café = "naïve"']);
    });

    it('replaces text found exactly once, reporting columns in characters, as one undo step', async () => {
      const before = await snapshot();
      const r = await callOk(chain.client, 'find_and_replace', {
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
      await chain.nvim.client.command('buffer notes.md | undo');
      expect((await snapshot()).lines).toEqual(before.lines);
    });

    it('refuses a stale changedtick and changes nothing', async () => {
      const before = await snapshot();
      const err = await callErr(chain.client, 'find_and_replace', {
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
      expect((await callErr(chain.client, 'find_and_replace', { buffer: 'notes.md', old_text: 'absent', new_text: 'x' })).code).toBe('NO_MATCH');
      const two = await callErr(chain.client, 'find_and_replace', { buffer: 'notes.md', old_text: 'twice', new_text: 'once' });
      expect(two.code).toBe('MULTIPLE_MATCHES');
      expect(two.matches).toEqual([{ line: 4, col: 1 }, { line: 5, col: 1 }]);
      expect(await snapshot()).toEqual(before);
    });

    it('creates a new buffer with write_buffer, and guards an existing one', async () => {
      const created = await callOk(chain.client, 'write_buffer', { buffer: 'draft/new.txt', text: 'first\nsecond — ü\n' });
      expect(created).toMatchObject({ created: true, total_lines: 2, path: join(chain.nvim.cwd, 'draft/new.txt') });
      expect((await snapshot('draft/new.txt')).lines).toEqual(['first', 'second — ü']);

      const before = await snapshot();
      const unguarded = await callErr(chain.client, 'write_buffer', { buffer: 'notes.md', text: 'clobbered' });
      expect(unguarded.code).toBe('INVALID_ARGUMENT');
      expect(unguarded.current_changedtick).toBe(before.tick);
      expect(await snapshot()).toEqual(before);

      const written = await callOk(chain.client, 'write_buffer', { buffer: 'notes.md', text: 'one\ntwo', expected_changedtick: before.tick });
      expect(written).toMatchObject({ created: false, total_lines: 2 });
      expect((await snapshot()).lines).toEqual(['one', 'two']);
      await chain.nvim.client.command('buffer notes.md | undo');
      expect((await snapshot()).lines).toEqual(before.lines);
    });
  });

  describe(`the rest of the catalog, over ${kind}`, () => {
    it('opens, edits by diff and substitute, undoes, decorates and saves a file', async () => {
      const opened = await callOk(chain.client, 'open_file', { path: 'more.txt' });
      expect(opened).toMatchObject({ created: true, exists_on_disk: false, shown: false });
      const buffer = opened.buf as number;

      const diff = ['--- a/more.txt', '+++ b/more.txt', '@@ -0,0 +1,2 @@', '+alpha — ü', '+beta'].join('\n') + '\n';
      const patched = await callOk(chain.client, 'apply_diff', { buffer, diff, expected_changedtick: opened.changedtick });
      expect(patched).toMatchObject({ hunks_applied: 1, lines_added: 2 });
      expect((await snapshot('more.txt')).lines).toEqual(['alpha — ü', 'beta']);

      const replaced = await callOk(chain.client, 'substitute', { buffer, pattern: 'a', replacement: 'A', flags: ['g'] });
      expect(replaced.count).toBe(3);
      expect((await snapshot('more.txt')).lines).toEqual(['AlphA — ü', 'betA']);
      const undone = await callOk(chain.client, 'undo', { buffer });
      expect(undone).toMatchObject({ changed: true, steps_taken: 1 });
      expect((await snapshot('more.txt')).lines).toEqual(['alpha — ü', 'beta']);

      const mark = await callOk(chain.client, 'highlight_range', { buffer, start: { line: 1, col: 9 }, end: { line: 1, col: 10 }, color: 'warning' });
      const before = await snapshot('more.txt');
      expect((await callOk(chain.client, 'clear_decorations', { buffer, id: mark.id })).removed).toBe(1);
      expect(await snapshot('more.txt')).toEqual(before);

      const saved = await callOk(chain.client, 'save_buffer', { buffer, expected_changedtick: before.tick });
      expect(saved).toMatchObject({ written: true, modified: false });
      expect(readFileSync(join(chain.nvim.cwd, 'more.txt'), 'utf8')).toBe('alpha — ü\nbeta\n');
    });

    it('runs Ex commands and keys, stopping at the first error', async () => {
      const ran = await callOk(chain.client, 'run_command', { commands: ['echo "one"', 'echo 1 + 1'] });
      expect((ran.results as { output: string }[]).map((r) => r.output)).toEqual(['one', '2']);
      const failed = await callErr(chain.client, 'run_command', { commands: ['echo "ok"', 'nosuchcommand', 'echo "never"'] });
      expect(failed).toMatchObject({ code: 'EDITOR_ERROR', failed_index: 2 });
      const keys = await callOk(chain.client, 'send_keys', { keys: 'gg' });
      expect(keys.mode).toBe('n');
    });
  });

  describe(`bad input gets a clear error and changes nothing, over ${kind}`, () => {
    // On connections of their own (helpers/post-alone.ts): not the MCP client's pool, whose next
    // request would go out on a connection the server closes behind a refusal.
    const post = (body: string, headers: Record<string, string> = {}, options: AloneOptions = {}): Promise<AloneAnswer> => {
      if (!chain.http) throw new Error('no HTTP endpoint on this chain');
      return postAlone(chain.http.mcpUrl, body, { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, options);
    };

    it.skipIf(kind === 'stdio')('malformed JSON is -32700 and an oversized body 413, before the MCP layer', async () => {
      const auth = { Authorization: `Bearer ${chain.http?.token}` };
      const { response: malformed } = await post('{"jsonrpc": "2.0", "id": 1, "method": ', auth);
      expect(malformed.status).toBe(400);
      expect(((await malformed.json()) as { error: { code: number } }).error.code).toBe(-32700);
      const { response: notRpc } = await post('{"hello": "world"}', auth);
      expect(notRpc.status).toBe(400);
      expect(((await notRpc.json()) as { error: { code: number } }).error.code).toBe(-32600);
      // Asked first (Expect: 100-continue), the answer is the refusal, and none of the 2 MiB is sent.
      const pad = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(2 * 1024 * 1024) } });
      const oversized = await post(pad, auth, { expectContinue: true });
      expect(oversized).toMatchObject({ continued: false, response: { status: 413 } });
      expect(((await oversized.response.json()) as { error: { code: number; message: string } }).error.message).toMatch(/^Payload Too Large/);
    });

    it('every class of bad tool call', async () => {
      const before = await snapshot();
      await expect(chain.client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/no_such_tool/);

      const schema = await callErr(chain.client, 'read_buffer', { start_line: 0, bogus: true });
      expect(schema.code).toBe('INVALID_ARGUMENT');

      const noBuffer = await callErr(chain.client, 'find_and_replace', { buffer: 9999, old_text: 'a', new_text: 'b' });
      expect(noBuffer.code).toBe('BUFFER_NOT_FOUND');
      const noPath = await callErr(chain.client, 'read_buffer', { buffer: 'does/not/exist.txt' });
      expect(noPath.code).toBe('BUFFER_NOT_FOUND');

      const wrongEditor = await callErr(chain.client, 'find_and_replace', { editor: 'elsewhere/nvim-1', old_text: 'one', new_text: 'x' });
      expect(wrongEditor.code).toBe('EDITOR_NOT_FOUND');
      expect(wrongEditor.editors).toEqual([chain.editorId]);

      expect(await snapshot()).toEqual(before);
    });
  });

  describe(`editors that go away, over ${kind}`, () => {
    it('a killed nvim leaves list_editors, and calls then answer NO_EDITOR', async () => {
      await chain.nvim.kill();
      await waitFor(async () => ((await callOk(chain.client, 'list_editors')).count === 0 ? true : undefined), 15_000, 'the editor to leave');
      const err = await callErr(chain.client, 'get_state_brief');
      expect(err.code).toBe('NO_EDITOR');
    });
  });
}
