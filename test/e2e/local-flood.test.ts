// `vimrelay serve --http` against another local account that floods its port with connections
// trickling their headers (agent/local/connections.ts), the server under a lowered limit of open
// file descriptors as a shared host may give it: the owner's MCP requests, each on a connection
// of its own, are answered while the flood holds its connections and after it, and the process
// lives on. Below that limit's room for connections, the flood uses up every descriptor: a log
// line and a status write that fail then (an editor going away meanwhile) end nothing, and serving
// goes on once descriptors are free.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, expect } from 'vitest';
import { LOCAL_HTTP_LIMITS } from '../../agent/local/connections.ts';
import { isolatedEnv } from '../helpers/agent-process.ts';
import { startNvim, type NvimFixture } from '../helpers/nvim.ts';
import { describeAsOther, itAsOther, spawnAsOther } from '../helpers/other-user.ts';
import { postAlone } from '../helpers/post-alone.ts';
import { startServeHttp, type ServeHttpProcess } from '../helpers/serve-process.ts';
import { waitFor } from '../helpers/wait.ts';

// The other account's program: opens `count` connections to the port, starts a request on each
// and sends one more byte of its header every 200 ms, never finishing it. Prints
// `{"settled": n, "connected": n, "open": n}` once every attempt has connected or failed.
const FLOOD = `
import { createConnection } from 'node:net';
const [port, count] = process.argv.slice(1);
const open = new Set();
let settled = 0;
let connected = 0;
const connect = () => {
  const socket = createConnection({ host: '127.0.0.1', port: Number(port) });
  let done = false;
  const settle = () => {
    if (done) return;
    done = true;
    if (++settled === Number(count)) process.stdout.write(JSON.stringify({ settled, connected, open: open.size }) + '\\n');
  };
  socket.on('connect', () => {
    connected++;
    open.add(socket);
    socket.write('POST /mcp HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nX-Slow: ');
    settle();
  });
  socket.on('error', settle);
  socket.on('close', () => {
    open.delete(socket);
    settle();
  });
};
for (let i = 0; i < Number(count); i++) connect();
setInterval(() => { for (const socket of open) socket.write('x'); }, 200);
`;

interface Flood {
  proc: ChildProcess;
  /** Once every first attempt has connected or failed: how many connected, how many are still open. */
  settled: Promise<{ connected: number; open: number }>;
}

/** Starts FLOOD as uid 65534, with room for its own connections. */
function flood(port: number, count: number): Flood {
  const proc = spawnAsOther('sh', ['-c', `ulimit -n ${count + 64} && exec "$0" --input-type=module -e "$1" "$2" "$3"`, process.execPath, FLOOD, String(port), String(count)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const settled = new Promise<{ connected: number; open: number }>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once('line', (line) => resolve(JSON.parse(line) as { connected: number; open: number }));
    proc.once('exit', (code) => reject(new Error(`the flood exited (${code}) before its connections settled`)));
  });
  return { proc, settled };
}

async function stopFlood(f: Flood | undefined): Promise<void> {
  if (!f || f.proc.exitCode !== null || f.proc.signalCode !== null) return;
  const exited = new Promise((resolve) => f.proc.once('exit', resolve));
  f.proc.kill('SIGKILL');
  await exited;
}

/** `list_editors` from the owner, on a connection of its own: the ids it lists. */
async function ownerListsEditors(serve: ServeHttpProcess): Promise<string[]> {
  const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_editors', arguments: {} } });
  const { response } = await postAlone(serve.mcpUrl, call, {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    Authorization: `Bearer ${serve.token}`,
  });
  expect(response.status).toBe(200);
  const answer = (await response.json()) as { result: { isError?: boolean; structuredContent: { editors: { id: string }[] } } };
  expect(answer.result.isError).toBeUndefined();
  return answer.result.structuredContent.editors.map((e) => e.id);
}

describeAsOther('serve --http flooded by another local account', () => {
  let env: NodeJS.ProcessEnv;
  let sockets: string;
  let nvim: NvimFixture;
  let serve: ServeHttpProcess | undefined;
  let attack: Flood | undefined;

  beforeEach(async () => {
    env = isolatedEnv();
    sockets = join(String(env.HOME), 'sockets');
    mkdirSync(sockets);
    nvim = await startNvim({ files: { 'a.txt': 'alpha\n' }, open: ['a.txt'], listen: join(sockets, 'nvim.flood.0') });
  }, 30_000);

  afterEach(async () => {
    await stopFlood(attack);
    await serve?.stop();
    await nvim?.stop();
  });

  itAsOther('answers the owner during and after 1,100 trickling connections, under a limit of 256 descriptors', async () => {
    serve = await startServeHttp(['--port', '0', '--discover-dir', sockets], env, { maxFiles: 256 });
    const port = Number(new URL(serve.mcpUrl).port);
    const [editor] = await waitFor(
      async () => {
        const ids = await ownerListsEditors(serve!);
        return ids.length === 1 ? ids : undefined;
      },
      20_000,
      'the Neovim listed',
    );

    attack = flood(port, 1_100);
    const held = await attack.settled;
    // More connections reached the server than it lets wait for a request with the token.
    expect(held.connected).toBeGreaterThan(LOCAL_HTTP_LIMITS.maxUnproven);
    expect(held.open).toBeGreaterThan(0);
    // During: each request on a new connection, as a client without a pooled one makes it.
    for (let i = 0; i < 3; i++) expect(await ownerListsEditors(serve)).toEqual([editor]);

    await stopFlood(attack);
    expect(await ownerListsEditors(serve)).toEqual([editor]);
    expect(serve.proc.exitCode).toBeNull();
  }, 60_000);

  itAsOther('survives running out of descriptors (accepting, a log line and a status write failing meanwhile) and serves once they are free', async () => {
    serve = await startServeHttp(['--port', '0', '--discover-dir', sockets], env);
    const port = Number(new URL(serve.mcpUrl).port);
    const pid = serve.proc.pid!;
    await waitFor(async () => ((await ownerListsEditors(serve!)).length === 1 ? true : undefined), 20_000, 'the Neovim listed');
    // No descriptor left, as a flood that got there first (or any other part of the process)
    // would leave it: the soft limit lowered, once it runs, to the three of stdin, stdout and stderr.
    const limit = (n: number): void => void expect(spawnSync('prlimit', ['--pid', String(pid), `--nofile=${n}:`]).status).toBe(0);
    limit(3);

    // No connection can be accepted (EMFILE); the flood's wait in the listen queue.
    attack = flood(port, 300);
    await attack.settled;
    // The editor changes directory meanwhile: the status file cannot be written with its new
    // directory, nor the log file say so.
    await nvim.client.command('cd /');
    await waitFor(() => (serve!.stderr().includes('cannot write the status file') ? true : undefined), 20_000, () => `the failed status write on stderr:\n${serve!.stderr()}`);
    expect(serve.stderr()).toMatch(/cannot write the log file .*agent\.log \(EMFILE\)/);
    expect(serve.proc.exitCode).toBeNull();

    await stopFlood(attack);
    limit(1024);
    expect(await waitFor(async () => ownerListsEditors(serve!).catch(() => undefined), 20_000, 'an answer once descriptors are free')).toHaveLength(1);
    expect(serve.proc.exitCode).toBeNull();
  }, 60_000);
});
