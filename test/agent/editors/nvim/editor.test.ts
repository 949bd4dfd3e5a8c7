// The Neovim adapter itself on a real Neovim: its info and how it stays fresh, unknown tools,
// exit detection, calls that can never be answered (killed editor, busy editor + abort), and a
// second agent attaching the same Neovim while a call is in flight (its failure stays a failure).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CallCancelled, controlWithin } from '../../../../agent/editors/call.ts';
import { NvimConnection } from '../../../../agent/editors/nvim/connection.ts';
import { NvimEditor } from '../../../../agent/editors/nvim/editor.ts';
import { CORE_LUA, HELPER_SOURCES, INSTALL_KEY, TOOL_SOURCES } from '../../../../agent/editors/nvim/lua.ts';
import { fakeSocket, nvimDriver, waitFor, type NvimDriver } from '../../../helpers/editors.ts';

describe('NvimEditor', () => {
  let f: NvimDriver;
  beforeAll(async () => {
    f = await nvimDriver({ files: { 'main.c': 'int main;\n', 'sub/x.txt': 'x\n' }, open: ['main.c'] });
  });
  afterAll(() => f.stop());

  it('describes the editor', async () => {
    const version = await f.nvim.lua<{ major: number; minor: number; patch: number }>('return vim.version()');
    expect(f.editor.id).toBe(`nvim-${f.nvim.pid}`);
    expect(f.editor.info()).toEqual({
      id: `nvim-${f.nvim.pid}`,
      kind: 'nvim',
      version: `${version.major}.${version.minor}.${version.patch}`,
      name: 'work',
      cwd: f.nvim.cwd,
      current_file: join(f.nvim.cwd, 'main.c'),
      pid: f.nvim.pid,
      waiting_for: null,
      ui: false,
      started_at: expect.any(Number),
    });
  });

  it('follows directory and buffer changes as they happen', async () => {
    const changes: string[] = [];
    const off = f.editor.onInfoChange((e) => changes.push(e.info().cwd));
    await f.nvim.client.command('cd sub | edit x.txt');
    const info = await waitFor(() => (f.editor.info().current_file?.endsWith('x.txt') ? f.editor.info() : undefined));
    expect(info).toMatchObject({ cwd: join(f.nvim.cwd, 'sub'), name: 'sub', current_file: join(f.nvim.cwd, 'sub/x.txt') });
    expect(changes.length).toBeGreaterThan(0);
    await f.nvim.client.command('enew');
    await waitFor(() => (f.editor.info().current_file === null ? true : undefined));
    off();
    await f.nvim.client.command('cd .. | buffer 1');
  });

  it('takes its name from g:vimrelay_name on refresh', async () => {
    await f.nvim.lua('vim.g.vimrelay_name = "my-editor"');
    await f.editor.refresh(AbortSignal.timeout(5_000));
    expect(f.editor.info().name).toBe('my-editor');
  });

  it('answers UNSUPPORTED with a hint for a tool it does not have', async () => {
    expect(await f.nvim.lua("return __vimrelay.latest.call('no_such_tool', {})")).toMatchObject({
      ok: false,
      error: { code: 'UNSUPPORTED', message: expect.stringContaining('no_such_tool') },
    });
  });

  it('turns a Lua error into EDITOR_ERROR', async () => {
    await f.nvim.lua('__vimrelay.latest.tools.read_buffer_saved = __vimrelay.latest.tools.read_buffer; __vimrelay.latest.tools.read_buffer = function() error("boom") end');
    expect(await f.call('read_buffer', {})).toMatchObject({ ok: false, error: { code: 'EDITOR_ERROR', message: expect.stringContaining('boom') } });
    await f.nvim.lua('__vimrelay.latest.tools.read_buffer = __vimrelay.latest.tools.read_buffer_saved');
  });

  it('a second agent attaching while a command waits on a prompt: the command still answers TIMEOUT with its details', async () => {
    // Another agent on the machine (its discovery scans the same directories) reinstalls the Lua.
    const outcome = f.call('run_command', { commands: ['echo "before"', "let g:answer = input('Name? ')", 'let g:after = 1'], timeout_ms: 2_000 });
    await waitFor(async () => ((await f.nvim.client.eval('getcmdtype()')) === '@' ? true : undefined), 10_000, 'the prompt');
    const other = await NvimEditor.attach(f.nvim.socket, { signal: AbortSignal.timeout(10_000) });
    try {
      expect(await outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT', failed_index: 2, results: [{ index: 1, output: 'before' }] } });
    } finally {
      await other.close();
    }
  });

  it('keeps a failure raised before a reinstall a failure after it (not EDITOR_ERROR "table: 0x...")', async () => {
    // A tool that fails, then waits in the event loop (as a command waiting on a prompt does)
    // while another agent attaches, then returns its failure.
    await f.nvim.lua(`
      local M = __vimrelay.latest
      M.tools.read_buffer_saved = M.tools.read_buffer
      M.tools.read_buffer = function()
        local _, failure = pcall(M.fail, 'NO_MATCH', 'raised before the reinstall')
        vim.g.vimrelay_test_waiting = 1
        vim.wait(5000, function() return vim.g.vimrelay_test_reinstalled == 1 end, 10)
        error(failure, 0)
      end`);
    const outcome = f.call('read_buffer', {});
    await waitFor(async () => ((await f.nvim.client.eval('get(g:, "vimrelay_test_waiting", 0)')) === 1 ? true : undefined), 10_000, 'the tool to wait');
    const other = await NvimEditor.attach(f.nvim.socket, { signal: AbortSignal.timeout(10_000) });
    await f.nvim.client.command('let g:vimrelay_test_reinstalled = 1');
    try {
      expect(await outcome).toMatchObject({ ok: false, error: { code: 'NO_MATCH', message: 'raised before the reinstall' } });
    } finally {
      await other.close();
      // The reinstall put every tool back.
      expect(await f.call('read_buffer', {})).toMatchObject({ ok: true });
    }
  });

  it('an agent of another version attaching installs its own tools beside ours, and shares the state every agent must', async () => {
    // As an upgraded agent and the one still running from before would: another key, other tools.
    const [channel] = (await f.nvim.client.request('nvim_get_api_info', [])) as [number];
    const other = { ...TOOL_SOURCES, read_buffer: 'return function() return { other_version = true } end' };
    await f.nvim.lua(CORE_LUA, HELPER_SOURCES, other, channel, 'another-version');
    try {
      expect(await f.call('read_buffer', {})).toMatchObject({ ok: true, data: { lines: ['int main;'] } });
      expect(await f.nvim.lua("return __vimrelay.installs['another-version'].call('read_buffer', {})")).toEqual({ ok: true, json: '{"other_version":true}' });
      // Our agent attaching again (same version) changes nothing for the other.
      const again = await NvimEditor.attach(f.nvim.socket, { signal: AbortSignal.timeout(10_000) });
      await again.close();
      expect(await f.nvim.lua("return __vimrelay.installs['another-version'].call('read_buffer', {})")).toEqual({ ok: true, json: '{"other_version":true}' });
      expect(await f.call('read_buffer', {})).toMatchObject({ ok: true, data: { lines: ['int main;'] } });
      // One set of prompts, channels and owed answers, and one failure marker, for both.
      expect(
        await f.nvim.lua(`
          local mine, theirs = __vimrelay.installs[...], __vimrelay.installs['another-version']
          local _, failure = pcall(theirs.fail, 'NO_MATCH', 'x')
          return { mine ~= theirs, mine.shared == theirs.shared, mine.shared == __vimrelay, mine.is_failure(failure) }`, INSTALL_KEY),
      ).toEqual([true, true, true, true]);
    } finally {
      await f.nvim.lua("__vimrelay.installs['another-version'] = nil");
    }
  });

  it('drops the install of an agent of another version once it has gone and another attaches; keeps those still attached', async () => {
    // Two agents of other versions, each on a connection of its own, as an upgrade leaves them.
    const install = async (version: string): Promise<{ connection: NvimConnection; channel: number }> => {
      const connection = await NvimConnection.open(f.nvim.socket, { signal: AbortSignal.timeout(10_000) });
      const [channel] = (await connection.request('nvim_get_api_info', [])) as [number];
      await connection.request('nvim_exec_lua', [CORE_LUA, [HELPER_SOURCES, TOOL_SOURCES, channel, version]]);
      return { connection, channel };
    };
    const gone = await install('gone-version');
    const live = await install('live-version');
    const installs = (): Promise<boolean[]> =>
      f.nvim.lua("local i = __vimrelay.installs; return { i['gone-version'] ~= nil, i['live-version'] ~= nil, i[...] ~= nil }", INSTALL_KEY);
    try {
      expect(await installs()).toEqual([true, true, true]);
      await gone.connection.close();
      await waitFor(async () => ((await f.nvim.lua('return vim.api.nvim_get_chan_info(...).id == nil', gone.channel)) ? true : undefined), 5_000, 'Neovim to see the channel closed');
      const again = await NvimEditor.attach(f.nvim.socket, { signal: AbortSignal.timeout(10_000) });
      await again.close();
      expect(await installs()).toEqual([false, true, true]);
      expect(await f.call('read_buffer', {})).toMatchObject({ ok: true, data: { lines: ['int main;'] } });
    } finally {
      await live.connection.close();
      await f.nvim.lua("__vimrelay.installs['live-version'] = nil");
    }
  });

  it("a command interrupted while another agent's info refreshes come in is still interrupted, not answered with CTRL-C", async () => {
    // Info refreshes (every agent sends one a second) arriving back to back while the prompt waits:
    // one is being evaluated when the watchdog's CTRL-C lands.
    let hammering = true;
    const hammer = (async () => {
      let n = 0;
      while (hammering) {
        await f.nvim.lua('return __vimrelay.latest.info()').catch(() => undefined);
        n++;
      }
      return n;
    })();
    try {
      for (let i = 0; i < 5; i++) {
        const outcome = await f.call('run_command', { commands: [`let g:answer${i} = input('Name? ')`, `let g:after${i} = 1`], timeout_ms: 200 });
        expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT', failed_index: 1 } });
        expect(await f.nvim.client.eval(`[exists("g:answer${i}"), exists("g:after${i}")]`)).toEqual([0, 0]);
      }
    } finally {
      hammering = false;
    }
    expect(await hammer).toBeGreaterThan(0);
  });

  it('gives up waiting on a busy editor when the signal aborts', async () => {
    await f.nvim.busy(1500);
    expect(await f.call('read_buffer', {}, controlWithin(100))).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    const controller = new AbortController();
    const pending = f.call('read_buffer', {}, { signal: controller.signal, deadline: Date.now() + 30_000 });
    controller.abort(new CallCancelled());
    expect(await pending).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    expect(await f.call('read_buffer', {})).toMatchObject({ ok: true });
  });
});

describe('NvimEditor when the editor goes away', () => {
  let f: NvimDriver | undefined;
  afterEach(async () => {
    await f?.stop();
    f = undefined;
  });

  it('answers EDITOR_OFFLINE, not a hang, when nvim is killed mid-call', async () => {
    f = await nvimDriver();
    await f.nvim.busy(30000);
    const pending = f.call('read_buffer', {});
    await f.nvim.kill();
    expect(await pending).toMatchObject({ ok: false, error: { code: 'EDITOR_OFFLINE' } });
    await f.editor.exited;
    expect(f.editor.isClosed).toBe(true);
    expect(await f.call('get_state_brief', {})).toMatchObject({ ok: false, error: { code: 'EDITOR_OFFLINE' } });
  });

  it('notices a normal exit', async () => {
    f = await nvimDriver();
    f.nvim.client.notify('nvim_command', ['qa!']);
    await f.editor.exited;
    expect(f.editor.isClosed).toBe(true);
  });

  it('closes without touching the editor', async () => {
    f = await nvimDriver();
    await f.editor.close();
    expect(await f.call('read_buffer', {})).toMatchObject({ ok: false, error: { code: 'EDITOR_OFFLINE' } });
    expect(await f.nvim.lua('return vim.fn.getpid()')).toBe(f.nvim.pid);
  });
});

describe('NvimEditor.attach', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'vimrelay-fake-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a socket that does not speak msgpack-RPC, without harming the agent', async () => {
    const fake = await fakeSocket(join(dir, 'nvim.fake.0'));
    await expect(NvimEditor.attach(join(dir, 'nvim.fake.0'), { signal: AbortSignal.timeout(5_000) })).rejects.toThrow(/msgpack-RPC/);
    expect(fake.connections()).toBe(1);
    await fake.close();
  });

  it('fails on a missing socket', async () => {
    await expect(NvimEditor.attach('/nonexistent/nvim.sock', { signal: AbortSignal.timeout(5_000) })).rejects.toThrow();
  });
});
