// connect_editor against a real editor source and real Neovims: the candidate list, attaching by
// socket path (outside the scanned roots, relative paths too), by candidate index (past a failed
// probe's backoff), and by the pid of a process in a Neovim terminal (through $NVIM, or the
// parent chain); TCP only for an address the user configured, and one answer for every address
// it may not attach (closed port, open port that is not Neovim, missing file, non-loopback,
// unconfigured): nothing about the machine shows through; errors for bad indexes and unknown
// pids; and the dispatcher running it as an agent-level call.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as netConnect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, CONNECT_EDITOR_LIMITS, connectEditor, parseArgs, type ToolOutcome } from '../../../protocol/index.ts';
import type { EditorSource } from '../../../agent/editors/editor.ts';
import { EditorRegistry } from '../../../agent/editors/registry.ts';
import { createEditorSource } from '../../../agent/editors/source.ts';
import { Dispatcher } from '../../../agent/calls/dispatcher.ts';
import { controlWithin } from '../../../agent/editors/call.ts';
import { runCommandTool } from '../../../agent/editors/tools/run-command.ts';
import { runConnectEditor } from '../../../agent/agent-tools/connect-editor.ts';
import { ancestry, readProcStat, readPs, serverAddressesOf } from '../../../agent/agent-tools/process-tree.ts';
import { readAgentConfig } from '../../../agent/config/agent-config.ts';
import { paths } from '../../../agent/config/paths.ts';
import { startNvim, type NvimFixture } from '../../helpers/nvim.ts';
import { fakeSocket, waitFor, type FakeSocket } from '../../helpers/editors.ts';
import { isolatedEnv, runCli } from '../../helpers/agent-process.ts';
import { testGuard } from '../../helpers/policy.ts';

let root: string;
let source: EditorSource | undefined;
const nvims: NvimFixture[] = [];
const fakes: FakeSocket[] = [];

async function start(listen: string): Promise<NvimFixture> {
  const nvim = await startNvim({ listen });
  nvims.push(nvim);
  return nvim;
}

/** connect_editor with arguments validated as the dispatcher would. */
async function connect(args: Record<string, unknown> = {}): Promise<ToolOutcome> {
  const parsed = parseArgs(connectEditor, args);
  if (!parsed.ok) return parsed.outcome;
  if (!source) throw new Error('no source');
  return runConnectEditor(source, parsed.args, AbortSignal.timeout(10_000));
}

async function connected(args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const outcome = await connect(args);
  if (!outcome.ok) throw new Error(`connect_editor failed: ${JSON.stringify(outcome.error)}`);
  return outcome.data;
}

/** The pid of the job of a terminal running `argv`, opened in `nvim`. */
function terminalJob(nvim: NvimFixture, argv: string[]): Promise<number> {
  // termopen() with a list execs the program itself: no shell that would exec it once more, while
  // its environment is read.
  return nvim.lua<number>('vim.cmd("enew"); vim.fn.termopen(...); return vim.b.terminal_job_pid', argv);
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'vimrelay-connect-'));
});
afterEach(async () => {
  await source?.stop();
  source = undefined;
  await Promise.all(fakes.splice(0).map((f) => f.close()));
  await Promise.all(nvims.splice(0).map((n) => n.stop()));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('connect_editor', () => {
  it('lists the candidates with no argument: attached, unreachable with the error, by address', async () => {
    const dir = join(root, 'listing');
    const nvim = await start(join(dir, 'nvim.real.0'));
    fakes.push(await fakeSocket(join(dir, 'nvim.4242.0')));
    source = createEditorSource({ dirs: [dir], sockets: [], intervalMs: 100 });
    const data = await waitFor(async () => {
      const d = await connected();
      const states = (d.candidates as { state: string }[]).map((c) => c.state);
      return states.includes('pending') || states.length < 2 ? undefined : d;
    }, 10_000, 'both candidates probed');
    expect(data).toEqual({
      action: 'listed',
      editor: null,
      candidates: [
        { index: 1, address: join(dir, 'nvim.4242.0'), pid: 4242, state: 'unreachable', editor: null, error: expect.any(String) },
        { index: 2, address: join(dir, 'nvim.real.0'), pid: nvim.pid, state: 'attached', editor: `nvim-${nvim.pid}`, error: null },
      ],
      candidates_total: 2,
      candidates_truncated: false,
    });
  });

  it('attaches a Neovim outside the scanned roots by socket path, relative ones too; again is already_attached', async () => {
    const nvim = await start(join(root, 'elsewhere', 'custom.sock'));
    source = createEditorSource({ dirs: [], sockets: [], intervalMs: 100 });
    const data = await connected({ socket_path: relative(process.cwd(), nvim.socket) });
    expect(data).toMatchObject({ action: 'attached', editor: { id: `nvim-${nvim.pid}`, kind: 'nvim', pid: nvim.pid, cwd: nvim.cwd } });
    expect(source.list().map((e) => e.id)).toEqual([`nvim-${nvim.pid}`]);
    expect(data.candidates).toEqual([expect.objectContaining({ address: nvim.socket, state: 'attached' })]);
    expect(await connected({ socket_path: nvim.socket })).toMatchObject({ action: 'already_attached', editor: { pid: nvim.pid } });
    // It stays watched: gone when it exits, and no longer a candidate.
    await nvim.stop();
    await waitFor(() => (source?.list().length === 0 ? true : undefined), 10_000, 'the editor to go');
    expect((await connected()).candidates).toEqual([]);
  });

  it('gives every address it may not attach the same answer, telling nothing of what is there', async () => {
    const openPort = await listening((socket) => socket.end('SSH-2.0-OpenSSH_9.2\r\n'));
    const closedPort = await freePort();
    const fake = join(root, 'not-nvim.sock');
    fakes.push(await fakeSocket(fake));
    const tcpNvimPort = await freePort();
    const tcpNvim = await start(`127.0.0.1:${tcpNvimPort}`);
    const channels = await tcpNvim.lua<number>('return #vim.api.nvim_list_chans()');
    source = createEditorSource({ dirs: [], sockets: [], tcpEditors: [], intervalMs: 100 });
    const answers: string[] = [];
    for (const address of [
      `127.0.0.1:${closedPort}`,
      `127.0.0.1:${openPort.port}`,
      `127.0.0.1:${tcpNvimPort}`, // a real Neovim, but on a TCP address nobody configured
      '10.0.0.1:6666',
      'localhost:6666',
      join(root, 'missing.sock'),
      fake,
    ]) {
      const outcome = await connect({ socket_path: address });
      if (outcome.ok) throw new Error(`attached ${address}`);
      answers.push(JSON.stringify({ ...outcome.error, message: outcome.error.message.replace(address, '<address>'), address: '<address>' }));
    }
    expect(new Set(answers).size, answers.join('\n')).toBe(1);
    expect(JSON.parse(answers[0] ?? '{}')).toEqual({
      code: 'EDITOR_NOT_FOUND',
      message: '<address> is not a Neovim this agent may attach.',
      address: '<address>',
      hint: expect.stringMatching(/v:servername.*tcp_editors of \$XDG_CONFIG_HOME\/vimrelay\/config\.json/),
    });
    // Refused before any connection: the open port never saw one, the Neovim was not attached.
    expect(openPort.connections()).toBe(0);
    expect(source.list()).toEqual([]);
    expect(await tcpNvim.lua('return #vim.api.nvim_list_chans()')).toBe(channels);
    openPort.server.close();
  });

  it('attaches a TCP Neovim the user configured in config.json, and refuses a bad config file naming it', async () => {
    const port = await freePort();
    const nvim = await start(`127.0.0.1:${port}`);
    const env = isolatedEnv();
    const file = paths(env).config;
    writeFileSync(file, JSON.stringify({ tcp_editors: [`127.0.0.1:${port}`] }));
    source = createEditorSource({ dirs: [], sockets: [], env, intervalMs: 60_000 });
    // Discovery attaches it too (it is configured): whichever comes first.
    expect(await connected({ socket_path: `127.0.0.1:${port}` })).toMatchObject({ action: expect.stringMatching(/^(already_)?attached$/), editor: { pid: nvim.pid } });
    for (const [bad, problem] of [
      ['{"tcp_editors": ["192.168.1.2:6666"]}', 'is not a loopback address'],
      ['{"tcp_editors": ["localhost:6666"]}', 'is not a loopback address'],
      ['{"tcp_editors": ["127.0.0.1"]}', 'is not a loopback address with a port'],
      ['{"tcp_editor": []}', 'tcp_editor'],
      ['{', 'is not valid JSON'],
    ] as const) {
      writeFileSync(file, bad);
      expect(() => readAgentConfig(file)).toThrow(problem);
      const out = runCli(['serve', '--http', '--port', '0'], env);
      expect(out.status).toBe(1);
      expect(out.stderr).toContain(file);
      expect(out.stderr).toContain(problem);
    }
  });

  it('attaches a candidate by index at once, though its failed probe is backing off; a bad index is refused', async () => {
    // A socket whose server first answers like no Neovim (the probe fails and backs off), then
    // hands its connections to a real Neovim: the same socket file, so the backoff still holds.
    const address = join(root, 'late', 'nvim.sock');
    const nvim = await start(join(root, 'late', 'real.sock'));
    let forward = false;
    const relay = await listeningAt(address, (socket) => {
      if (!forward) return void socket.end('not msgpack');
      const upstream = netConnect(nvim.socket);
      socket.pipe(upstream).pipe(socket);
      upstream.on('error', () => socket.destroy());
    });
    // One scan only: the address fails its probe and is not tried again.
    source = createEditorSource({ dirs: [], sockets: [address], intervalMs: 60_000 });
    await waitFor(async () => ((await connected()).candidates as { state: string }[])[0]?.state === 'unreachable' || undefined, 10_000, 'the failed probe');
    forward = true;
    expect(await connected({ index: 1 })).toMatchObject({ action: 'attached', editor: { pid: nvim.pid }, candidates: [{ index: 1, state: 'attached' }] });
    expect(await connect({ index: 2 })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', candidates_total: 1 } });
    expect(await connect({ index: 1, socket_path: address })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    await source.stop();
    source = undefined;
    relay.close();
  });

  it('finds the Neovim running a process by its $NVIM, even where discovery cannot see it', async () => {
    const nvim = await start(join(root, 'hidden', 'server.sock'));
    const job = await terminalJob(nvim, ['sleep', '600']);
    // Read once the job has exec'd (a fresh fork still shows its parent's environment).
    await waitFor(async () => ((await serverAddressesOf(job)).includes(nvim.socket) ? true : undefined), 5_000, 'the job to start');
    expect(await serverAddressesOf(job)).toEqual([nvim.socket]);
    source = createEditorSource({ dirs: [], sockets: [], intervalMs: 100 });
    expect(await connected({ terminal_pid: job })).toMatchObject({ action: 'attached', editor: { pid: nvim.pid } });
    expect(await connected({ terminal_pid: job })).toMatchObject({ action: 'already_attached', editor: { pid: nvim.pid } });
  });

  it('walks the parent chain to an attached Neovim when the process has no $NVIM; the nearest one wins', async () => {
    // A Neovim inside another's terminal, both attached.
    const outer = await start(join(root, 'chain', 'outer.sock'));
    const innerSocket = join(root, 'chain', 'inner.sock');
    await outer.lua('vim.cmd("terminal nvim --headless --clean -n --listen " .. ...)', innerSocket);
    source = createEditorSource({ dirs: [], sockets: [outer.socket, innerSocket], intervalMs: 100 });
    const inner = await waitFor(() => (source?.list().length === 2 ? source.list().find((e) => e.info().pid !== outer.pid) : undefined), 10_000, 'both attached');
    const innerPid = inner.info().pid;
    // In the inner one, a job without $NVIM (`env -u` execs sleep without it): only the chain leads on.
    // termopen() with a list runs env directly, whatever the user's 'shell' does with `-c`.
    const commands = ['enew', "call termopen(['env', '-u', 'NVIM', '-u', 'NVIM_LISTEN_ADDRESS', 'sleep', '600'])", 'echo b:terminal_job_pid'];
    const opened = await inner.run(runCommandTool, { commands }, controlWithin(5_000));
    if (!opened.ok) throw new Error(JSON.stringify(opened.error));
    const job = Number((opened.data.results as { output: string }[])[2]?.output);
    let seen = '';
    const chain = await waitFor(async () => {
      const c = await ancestry(job, 8);
      const addresses = await serverAddressesOf(job);
      seen = JSON.stringify({ job, chain: c, addresses });
      return addresses.length === 0 && c[0]?.name === 'sleep' ? c : undefined;
    }, 10_000, () => `sleep to run without $NVIM (last seen ${seen})`);
    const pids = chain.map((e) => e.pid);
    expect(pids[1]).toBe(innerPid);
    expect(pids).toContain(outer.pid);
    expect(await connected({ terminal_pid: job })).toMatchObject({ action: 'already_attached', editor: { pid: innerPid } });
  });

  it('refuses a pid that does not exist, and one with no Neovim among its parents (listing them)', async () => {
    source = createEditorSource({ dirs: [], sockets: [], intervalMs: 100 });
    expect(await connect({ terminal_pid: 2 ** 22 + 12345 })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    const outcome = await connect({ terminal_pid: 1 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'EDITOR_NOT_FOUND', ancestors: [{ pid: 1, name: expect.any(String) }], tried: [] } });
  });

  it('lists at most the documented number of candidates, saying how many there are', async () => {
    const sockets = Array.from({ length: CONNECT_EDITOR_LIMITS.maxCandidates + 3 }, (_, i) => join(root, 'many', `s${String(i).padStart(3, '0')}.sock`));
    for (const socket of sockets) fakes.push(await fakeSocket(socket));
    source = createEditorSource({ dirs: [], sockets, intervalMs: 60_000 });
    const data = await waitFor(async () => {
      const d = await connected();
      return d.candidates_total === sockets.length ? d : undefined;
    }, 10_000, 'the first scan');
    expect(data.candidates).toHaveLength(CONNECT_EDITOR_LIMITS.maxCandidates);
    expect(data.candidates_truncated).toBe(true);
  });
});

describe('process chain', () => {
  it('reads the same parent from /proc and from ps', async () => {
    const viaProc = await readProcStat(process.pid);
    const viaPs = await readPs(process.pid);
    expect(viaProc).toMatchObject({ pid: process.pid, ppid: process.ppid });
    expect(viaPs).toMatchObject({ pid: process.pid, ppid: process.ppid });
    expect(viaPs?.name).toBe(viaProc?.name);
    const chain = await ancestry(process.pid, 64);
    expect(chain[0]?.pid).toBe(process.pid);
    expect(chain[1]?.pid).toBe(process.ppid);
  });
});

describe('connect_editor through the dispatcher', () => {
  it('runs as an agent-level call (no editor named) against the source; a bare lookup cannot', async () => {
    const nvim = await start(join(root, 'dispatch', 'nvim.sock'));
    source = createEditorSource({ dirs: [], sockets: [], intervalMs: 100 });
    const call = { type: 'call' as const, id: 'connect-1', tool: 'connect_editor', editor: '', args: { socket_path: nvim.socket }, scopes: ['read'], client: 'test', deadline_ms: 10_000 };
    expect(await new Dispatcher(source, testGuard().guard).handle(call)).toMatchObject({ ok: true, data: { action: 'attached', editor: { pid: nvim.pid } } });
    expect(await new Dispatcher(new EditorRegistry(), testGuard().guard).handle({ ...call, id: 'connect-2' })).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED' } });
    expect(await new Dispatcher(source, testGuard().guard).handle({ ...call, id: 'connect-3', scopes: [...ALL_SCOPES].filter((s) => s !== 'read') })).toMatchObject({
      ok: false,
      error: { code: 'PERMISSION_DENIED' },
    });
  });
});

/** A TCP listener on 127.0.0.1 that counts connections and hands each to `onConnection`. */
async function listening(onConnection: (socket: Socket) => void): Promise<{ server: Server; port: number; connections(): number }> {
  let count = 0;
  const server = createServer((socket) => {
    count++;
    socket.on('error', () => {});
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { server, port: address.port, connections: () => count };
}

/** A unix socket server at `path` handing each connection to `onConnection`. */
async function listeningAt(path: string, onConnection: (socket: Socket) => void): Promise<Server> {
  mkdirSync(join(path, '..'), { recursive: true });
  const server = createServer((socket) => {
    socket.on('error', () => {});
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return server;
}

/** A TCP port nothing listens on (as the kernel gave it out a moment ago). */
async function freePort(): Promise<number> {
  const { server, port } = await listening(() => {});
  await new Promise((r) => server.close(r));
  return port;
}
