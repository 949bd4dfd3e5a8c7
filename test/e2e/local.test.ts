// Local mode's own promises, beyond the tools (tools-http / tools-stdio run those): `serve --http`
// binds loopback only, refuses requests without the right token, Origin or method as the relay
// does, keeps its token private and reuses it, and cancels a call on `notifications/cancelled`;
// `serve --stdio` keeps stdout for protocol messages even when something in the process prints,
// and ends when the client closes stdin; a fresh serve answers its first list_editors with the
// Neovim already running (after its first discovery pass), and its NO_EDITOR speaks of local mode.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { createConnection } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAudit } from '../../agent/audit/log.ts';
import { paths } from '../../agent/config/paths.ts';
import { LIMITS } from '../../protocol/index.ts';
import { localTokenFile } from '../../agent/local/token.ts';
import { CLI, isolatedEnv, runCli } from '../helpers/agent-process.ts';
import { callErr, callOk, connectStdio } from '../helpers/mcp.ts';
import { startNvim, type NvimFixture } from '../helpers/nvim.ts';
import { postAlone } from '../helpers/post-alone.ts';
import { startServeHttp, type ServeHttpProcess } from '../helpers/serve-process.ts';

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } },
};

describe('serve --http', () => {
  let env: NodeJS.ProcessEnv;
  let sockets: string;
  let serve: ServeHttpProcess;
  let nvim: NvimFixture;

  const post = (body: unknown, headers: Record<string, string> = {}, init: RequestInit = {}): Promise<Response> =>
    fetch(serve.mcpUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
      ...init,
    });
  const auth = (): Record<string, string> => ({ Authorization: `Bearer ${serve.token}` });

  beforeAll(async () => {
    env = isolatedEnv();
    sockets = join(String(env.HOME), 'sockets');
    mkdirSync(sockets);
    nvim = await startNvim({ files: { 'a.txt': 'alpha\n' }, open: ['a.txt'], listen: join(sockets, 'nvim.local.0') });
    serve = await startServeHttp(['--port', '0', '--discover-dir', sockets], env);
  }, 30_000);

  afterAll(async () => {
    await serve?.stop();
    await nvim?.stop();
  });

  it('prints the MCP URL on 127.0.0.1 and listens on the loopback address only', async () => {
    const url = new URL(serve.mcpUrl);
    expect(url.hostname).toBe('127.0.0.1');
    expect(url.pathname).toBe('/mcp');
    const port = Number(url.port);
    // Linux lists listening sockets in /proc/net/tcp{,6}: local address in hex, state 0A = LISTEN.
    const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
    const listening = ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .slice(1)
        .map((line) => line.trim().split(/\s+/))
        .filter((f) => f[1]?.endsWith(`:${hexPort}`) && f[3] === '0A')
        .map((f) => f[1]),
    );
    expect(listening).toEqual([`0100007F:${hexPort}`]);
    // And no other address of this machine answers on that port.
    const others = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).filter((i) => !i.internal && i.family === 'IPv4'));
    for (const address of others) {
      const connected = await new Promise<boolean>((resolve) => {
        const socket = createConnection(port, address.address);
        socket.once('connect', () => (socket.destroy(), resolve(true)));
        socket.once('error', () => resolve(false));
      });
      expect(connected, `reachable on ${address.address}`).toBe(false);
    }
  });

  it('keeps the token private (0600 in a 0700 directory) and never logs it', () => {
    const p = paths(env);
    const file = localTokenFile(p.configDir);
    expect(readFileSync(file, 'utf8').trim()).toBe(serve.token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(p.configDir).mode & 0o777).toBe(0o700);
    expect(serve.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(serve.stderr()).not.toContain(serve.token);
    expect(readFileSync(p.log, 'utf8')).not.toContain(serve.token);
  });

  it('without a token: 401 with a bare challenge', async () => {
    const res = await post(initialize);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="vimrelay"');
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32000);
  });

  it('with a wrong token, of any length: 401 invalid_token', async () => {
    const sameLength = serve.token.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'));
    for (const wrong of ['not-the-token', sameLength, `${serve.token}x`]) {
      const res = await post(initialize, { Authorization: `Bearer ${wrong}` });
      expect(res.status, wrong).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    }
  });

  it('with the token (scheme in any case): the MCP answer', async () => {
    const res = await post(initialize, { Authorization: `bearer ${serve.token}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(((await res.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe('vimrelay');
  });

  it('GET and DELETE are 405, other paths 404', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(serve.mcpUrl, { method, headers: auth() });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
    expect((await fetch(new URL('/elsewhere', serve.mcpUrl), { method: 'POST', headers: auth() })).status).toBe(404);
  });

  it('a foreign Origin is 403; a loopback one gets CORS, the challenge exposed', async () => {
    const foreign = await post(initialize, { ...auth(), Origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();

    const local = await post(initialize, { ...auth(), Origin: 'http://localhost:6274' });
    expect(local.status).toBe(200);
    expect(local.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    expect(local.headers.get('access-control-expose-headers')).toMatch(/WWW-Authenticate/);

    const preflight = await fetch(serve.mcpUrl, {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:6274', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
  });

  it('a body over the cap is 413, declared or streamed; a client that asks first sends none of it', async () => {
    const big = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(2 * 1024 * 1024) } };
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    // Expect: 100-continue (RFC 9110 §10.1.1): the edge answers before asking for the body, so the
    // refusal of a declared 2 MiB, or of a bad token, is final with no byte of the body sent.
    const declared = await postAlone(serve.mcpUrl, JSON.stringify(big), { ...headers, ...auth() }, { expectContinue: true });
    expect(declared).toMatchObject({ continued: false, response: { status: 413 } });
    const small = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
    const stranger = await postAlone(serve.mcpUrl, small, { ...headers, Authorization: 'Bearer not-the-token' }, { expectContinue: true });
    expect(stranger).toMatchObject({ continued: false, response: { status: 401 } });
    const asked = await postAlone(serve.mcpUrl, small, { ...headers, ...auth() }, { expectContinue: true });
    expect(asked).toMatchObject({ continued: true, response: { status: 200 } });
    expect(await asked.response.json()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    // No Content-Length: the stream is counted as it arrives.
    const text = new TextEncoder().encode(JSON.stringify(big));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < text.length; i += 64 * 1024) controller.enqueue(text.subarray(i, i + 64 * 1024));
        controller.close();
      },
    });
    const streamed = await fetch(serve.mcpUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...auth() },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  it('notifications/cancelled stops a call in flight, which answers CANCELLED', async () => {
    const call = { jsonrpc: '2.0', id: 77, method: 'tools/call', params: { name: 'read_buffer', arguments: {} } };
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 77, reason: 'test' } };
    // The editor is busy for seconds, so the call waits; without the cancellation it would succeed then.
    await nvim.busy(4000);
    let settled = false;
    const pending = post(call, auth()).finally(() => (settled = true));
    // Cancel until it lands: the call may not be in flight yet when the first one arrives.
    while (!settled) {
      expect((await post(cancel, auth())).status).toBe(202);
      await new Promise((r) => setTimeout(r, 100));
    }
    const res = (await (await pending).json()) as { result: { isError?: boolean; content: { text: string }[] } };
    expect(res.result.isError).toBe(true);
    expect((JSON.parse(res.result.content[0]?.text ?? '{}') as { error: { code: string } }).error.code).toBe('CANCELLED');
  });

  it('reuses its token on the next start, and refuses a port in use', async () => {
    const again = await startServeHttp(['--port', '0', '--discover-dir', sockets], env);
    expect(again.token).toBe(serve.token);
    expect(await again.stop()).toBe(0);

    const taken = new URL(serve.mcpUrl).port;
    const clash = runCli(['serve', '--http', '--port', taken, '--discover-dir', sockets], env);
    expect(clash.status).toBe(1);
    expect(clash.stderr).toMatch(new RegExp(`port ${taken} on 127\\.0\\.0\\.1 is in use`));
  });

  it('stops on SIGTERM with exit code 0', async () => {
    const other = await startServeHttp(['--port', '0', '--discover-dir', sockets], env);
    expect(await other.stop()).toBe(0);
  });
});

/** `serve --stdio` spoken to line by line, as a client writes to it and reads its stdout. */
function rawStdio(env: NodeJS.ProcessEnv, preload: string[] = []) {
  const proc = spawn(process.execPath, [...preload, CLI, 'serve', '--stdio', '--discover-dir', String(env.XDG_RUNTIME_DIR)], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const stderr = { text: '' };
  proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr.text += chunk));
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  createInterface({ input: proc.stdout }).on('line', (line) => {
    lines.push(line);
    waiters.splice(0).forEach((w) => w());
  });
  /** The message on stdout that `pick` finds, once there is one. */
  const awaitLine = async (pick: (m: Record<string, unknown>, index: number) => boolean): Promise<Record<string, unknown>> => {
    for (;;) {
      const found = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find(pick);
      if (found) return found;
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return {
    proc,
    exited,
    stderr,
    lines,
    /** The answer to request `id`. */
    reply: (id: number) => awaitLine((m) => m.id === id),
    /** The `n`th line of stdout (from 0), parsed. */
    line: (n: number) => awaitLine((_m, index) => index === n),
    send: (message: unknown): boolean => proc.stdin.write(JSON.stringify(message) + '\n'),
  };
}

describe('serve --stdio', () => {
  it('writes only protocol messages to stdout, even when something in the process prints, and ends with stdin', async () => {
    const env = isolatedEnv();
    const fixture = join(import.meta.dirname, 'fixtures', 'stray-stdout.mjs');
    const { proc, exited, stderr, lines, reply, send } = rawStdio(env, ['--import', fixture]);

    send(initialize);
    expect(((await reply(1)).result as { serverInfo: { name: string } }).serverInfo.name).toBe('vimrelay');
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    proc.kill('SIGUSR2');
    for (const deadline = Date.now() + 10_000; !stderr.text.includes('stray stdout write'); ) {
      if (Date.now() > deadline) throw new Error(`no stray output on stderr: ${stderr.text}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(stderr.text).toContain('stray console.log');
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(((await reply(2)).result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);

    proc.stdin.end();
    expect(await exited).toBe(0);
    // Every line on stdout was a JSON-RPC message.
    expect(lines.length).toBe(2);
    for (const line of lines) expect((JSON.parse(line) as { jsonrpc: string }).jsonrpc).toBe('2.0');
  });

  it('answers a line that is not a JSON-RPC message, or too long, with its error, and goes on', async () => {
    const { proc, exited, lines, line, reply, send } = rawStdio(isolatedEnv());
    const error = async (n: number): Promise<{ code: number; message: string }> => {
      const answer = await line(n);
      expect(answer.id, JSON.stringify(answer)).toBeNull();
      return answer.error as { code: number; message: string };
    };
    proc.stdin.write('{"jsonrpc": "2.0", "id": 1, "method": \n');
    expect(await error(0)).toMatchObject({ code: -32700, message: expect.stringMatching(/^Parse error/) });
    proc.stdin.write('{"hello": "world"}\n\n[{"jsonrpc": "2.0", "id": 2, "method": "ping"}]\n');
    expect(await error(1)).toMatchObject({ code: -32600, message: expect.stringMatching(/^Invalid Request/) });
    expect(await error(2)).toMatchObject({ code: -32600, message: expect.stringMatching(/batches/) });
    // Past the cap, however it arrives: 9 MiB in 64 KiB pieces, then 12 MiB in one write (the SDK
    // alone closed the session past 10 MiB). Neither is held whole.
    const piece = 'x'.repeat(64 * 1024);
    for (let sent = 0; sent < 9 * 1024 * 1024; sent += piece.length) proc.stdin.write(piece);
    proc.stdin.write('\n' + 'y'.repeat(12 * 1024 * 1024) + '\n');
    expect(await error(3)).toMatchObject({ code: -32000, message: `Request too large: a line of stdin must not exceed ${LIMITS.maxStdioLineBytes} bytes.` });
    expect(await error(4)).toMatchObject({ code: -32000 });

    // The session goes on: an initialize, then a 2 MiB call (over the HTTP cap, under this one), in pieces.
    send(initialize);
    expect(((await reply(1)).result as { serverInfo: { name: string } }).serverInfo.name).toBe('vimrelay');
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const text = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'write_buffer', arguments: { buffer: 'big.txt', text: 'z'.repeat(2 * 1024 * 1024) } } });
    for (let i = 0; i < text.length; i += 100_000) proc.stdin.write(text.slice(i, i + 100_000));
    proc.stdin.write('\n');
    const big = (await reply(3)).result as { isError?: boolean; content: { text: string }[] };
    expect(big.isError).toBe(true);
    expect((JSON.parse(big.content[0]?.text ?? '{}') as { error: { code: string } }).error.code).toBe('NO_EDITOR');

    proc.stdin.end();
    expect(await exited).toBe(0);
    expect(lines).toHaveLength(7);
  });

  it("answers its very first list_editors with the Neovim already running; with none, NO_EDITOR's hint is local mode's", async () => {
    const env = isolatedEnv();
    const sockets = join(String(env.HOME), 'sockets');
    mkdirSync(sockets);
    const nvim = await startNvim({ files: { 'a.txt': 'a\n' }, open: ['a.txt'], listen: join(sockets, 'nvim.first.0') });
    try {
      const serve = await connectStdio(process.execPath, [CLI, 'serve', '--stdio', '--discover-dir', sockets], env);
      expect((await callOk(serve.client, 'list_editors')).count).toBe(1);
      await serve.client.close();
    } finally {
      await nvim.stop();
    }
    const empty = await connectStdio(process.execPath, [CLI, 'serve', '--stdio', '--discover-dir', join(String(env.HOME), 'none')], env);
    const none = await callErr(empty.client, 'read_buffer', {});
    expect(none.code).toBe('NO_EDITOR');
    expect(`${String(none.message)} ${none.hint}`).not.toMatch(/vimrelay agent|\brelay\b/);
    expect(none.hint).toMatch(/VimRelayConnect/);
    await empty.client.close();
  });

  it.each(['modern', 'legacy'] as const)('names its client, in the audit log and `vimrelay log`, as the client names itself (%s era)', async (era) => {
    const env = isolatedEnv();
    const sockets = join(String(env.HOME), 'sockets');
    mkdirSync(sockets);
    const nvim = await startNvim({ files: { 'a.txt': 'a\n' }, open: ['a.txt'], listen: join(sockets, 'nvim.named.0') });
    try {
      const info = { name: 'claude-code', title: 'Claude Code', version: '2.0.0' };
      const serve = await connectStdio(process.execPath, [CLI, 'serve', '--stdio', '--discover-dir', sockets], env, era, { info });
      await callOk(serve.client, 'read_buffer', {});
      await serve.client.close();
    } finally {
      await nvim.stop();
    }
    expect(readAudit(paths(env).audit, 1)[0]).toMatchObject({ client: 'local:stdio', client_name: 'Claude Code', tool: 'read_buffer', outcome: 'ok' });
    expect(runCli(['log', '-n', '1'], env).stdout.split('\n')[1]).toMatch(/^\S+ +Claude Code +\S+ +read_buffer +allow +ok /);
  });

  it('refuses to start without exactly one of --stdio and --http', () => {
    const env = isolatedEnv();
    for (const args of [['serve'], ['serve', '--stdio', '--http'], ['serve', '--stdio', '--port', '1']]) {
      const r = runCli(args, env);
      expect(r.status, args.join(' ')).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^vimrelay: /);
    }
  });
});
