// The CLI's HTTP clients as a user meets them, with the real `vimrelay` command: Ctrl-C in
// `vimrelay pair` cancels the request on a real relay (local workerd), whose page then says it was
// cancelled and refuses to approve it; a relay that is not there, a host that does not exist, TLS
// spoken to a plain HTTP server, a server that never answers or hangs up, a relay that refuses
// the owner secret or has none, another server's refusal, and another server's 200 (a web page,
// JSON of its own) each get a message saying what failed and what to do, never "fetch failed",
// a guess, a JSON parser's complaint or a zod issue dump.
import { spawn } from 'node:child_process';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayCredentials } from '../../agent/config/credentials.ts';
import { paths } from '../../agent/config/paths.ts';
import { relayFetch, RelayUnreachable } from '../../agent/relay/fetch-failure.ts';
import { freePort } from '../../scripts/local-relay.ts';
import { CLI, isolatedEnv } from '../helpers/agent-process.ts';
import { ownerBasic, withRelay, type TestRelay } from '../helpers/relay.ts';
import { waitFor } from '../helpers/wait.ts';

let relay: TestRelay;
const servers: { close(): void }[] = [];

beforeAll(async () => {
  relay = await withRelay();
}, 90_000);

afterAll(async () => {
  for (const s of servers) s.close();
  await relay?.stop();
});

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion without blocking this process (its servers must keep answering). */
function cli(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  const proc = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  proc.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve) => proc.once('exit', (status) => resolve({ status, stdout, stderr })));
}

function listening<T extends Server | ReturnType<typeof createTcpServer>>(server: T): Promise<number> {
  servers.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

describe('Ctrl-C in vimrelay pair', () => {
  it('cancels the request on the relay: its page says so and approving it is refused', async () => {
    const env = isolatedEnv();
    const proc = spawn(process.execPath, [CLI, 'pair', relay.url, '--name', 'gave-up'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    proc.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    const code = await waitFor(async () => /Code: ([A-Z]{4}-[A-Z]{4})/.exec(out)?.[1], 30_000, () => `a code; it wrote:\n${out}${err}`);
    await waitFor(async () => (err.includes('Waiting for approval') ? true : undefined), 30_000, 'the waiting message');
    proc.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(err).toContain(`pairing cancelled; code ${code} can no longer be approved, and nothing was saved`);
    expect(relayCredentials(paths(env).credentials, relay.url).device_credential).toBeUndefined();

    const owner = { Authorization: ownerBasic(relay.ownerSecret) };
    const page = await fetch(`${relay.url}/pair?code=${code}`, { headers: owner });
    const text = await page.text();
    expect(page.status).toBe(410);
    expect(text).toContain('This request was cancelled');
    const csrf = /name="csrf" value="([^"]+)"/.exec(text)?.[1] ?? '';
    const approve = await fetch(`${relay.url}/pair/approve`, { method: 'POST', headers: owner, body: new URLSearchParams({ csrf, code }) });
    expect(approve.status).toBe(410);
  });
});

describe('a relay that cannot be reached', () => {
  it('not listening: "connection refused", with the address and what to check', async () => {
    const port = await freePort();
    const run = await cli(['pair', `http://127.0.0.1:${port}`], isolatedEnv());
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(`vimrelay: cannot reach the relay at http://127.0.0.1:${port}: connection refused; is the relay running at that address and port?\n`);
  });

  it('a host that does not exist: the DNS lookup named', async () => {
    const run = await cli(['devices', '--relay', 'https://no-such-relay.invalid'], isolatedEnv({ VIMRELAY_OWNER_SECRET: 'x' }));
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^vimrelay: cannot reach the relay at https:\/\/no-such-relay\.invalid: (no such host no-such-relay\.invalid \(DNS lookup failed\); check the URL|the DNS lookup of no-such-relay\.invalid failed for now; check this machine's network)\n$/);
  });

  it('https:// to a plain HTTP server: TLS named as what failed', async () => {
    const port = await listening(createHttpServer((_req, res) => res.end('plain')));
    const run = await cli(['token', 'create', '--relay', `https://127.0.0.1:${port}`, '--name', 'x'], isolatedEnv({ VIMRELAY_OWNER_SECRET: 'x' }));
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(`vimrelay: cannot reach the relay at https://127.0.0.1:${port}: TLS failed: it does not speak TLS at that address (an http:// relay?)\n`);
  });

  it('a server that never answers: a timeout, and one that hangs up: the connection closed', async () => {
    const silent = await listening(createTcpServer(() => {}));
    const timedOut = await relayFetch(`http://127.0.0.1:${silent}/pair/device`, { method: 'POST', timeoutMs: 300 }).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(RelayUnreachable);
    expect((timedOut as RelayUnreachable).code).toBe('TIMEOUT');
    expect((timedOut as Error).message).toBe(`cannot reach the relay at http://127.0.0.1:${silent}: no answer within 0.3 s; is the relay up and reachable from here?`);
    const rude = await listening(createTcpServer((socket) => socket.destroy()));
    const closed = await relayFetch(`http://127.0.0.1:${rude}/agent/token`).catch((e: unknown) => e);
    expect((closed as Error).message).toBe(`cannot reach the relay at http://127.0.0.1:${rude}: the connection was closed before an answer came; is that address the relay?`);
  });

  it('the caller\'s own abort is passed on as it is, not reported as the relay\'s failure', async () => {
    const silent = await listening(createTcpServer(() => {}));
    const stop = new AbortController();
    const pending = relayFetch(`http://127.0.0.1:${silent}/`, { signal: stop.signal }).catch((e: unknown) => e);
    stop.abort(new Error('interrupted'));
    expect(((await pending) as Error).message).toBe('interrupted');
  });
});

describe('a relay that refuses', () => {
  it('a wrong owner secret: said so, naming the variable', async () => {
    const run = await cli(['devices', '--relay', relay.url], isolatedEnv({ VIMRELAY_OWNER_SECRET: 'not the secret' }));
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('vimrelay: the relay refused the owner secret: VIMRELAY_OWNER_SECRET is not its OWNER_SECRET\n');
  });

  it('a relay without an owner secret: said so, naming the command that sets it', async () => {
    const unset = await withRelay({ OWNER_SECRET: '' });
    try {
      const run = await cli(['devices', '--relay', unset.url], isolatedEnv({ VIMRELAY_OWNER_SECRET: 'any' }));
      expect([run.status, run.stderr]).toEqual([1, 'vimrelay: the relay has no OWNER_SECRET set, so its admin API is off (wrangler secret put OWNER_SECRET)\n']);
    } finally {
      await unset.stop();
    }
  });

  it('the same statuses from something else at that address: shown as they came, not read as a verdict on the secret', async () => {
    for (const [status, body] of [[503, 'upstream connect error'], [401, '<html>sign in to the proxy</html>']] as const) {
      const port = await listening(createHttpServer((_req, res) => res.writeHead(status).end(body)));
      const run = await cli(['devices', '--relay', `http://127.0.0.1:${port}`], isolatedEnv({ VIMRELAY_OWNER_SECRET: 'any' }));
      expect([run.status, run.stderr]).toEqual([1, `vimrelay: /admin/devices answered HTTP ${status}: ${body}\n`]);
    }
  });
});

describe('something else at the relay URL', () => {
  it('a 200 that is not the relay\'s JSON (a page, JSON of another shape): said so with the URL, for each command', async () => {
    for (const [body, kind] of [['<!doctype html><p>Sign in to continue</p>', 'not JSON'], ['{"ok":true}', 'JSON of another shape']] as const) {
      const port = await listening(createHttpServer((_req, res) => res.writeHead(200).end(body)));
      const base = `http://127.0.0.1:${port}`;
      const env = isolatedEnv({ VIMRELAY_OWNER_SECRET: 'any' });
      for (const [args, path] of [
        [['pair', base], '/pair/device'],
        [['devices', '--relay', base], '/admin/devices'],
        [['enroll', '--relay', base], '/admin/devices'],
        [['token', 'create', '--relay', base, '--name', 'x'], '/admin/tokens'],
      ] as const) {
        const run = await cli([...args], env);
        expect([args, run.status, run.stderr]).toEqual([args, 1, `vimrelay: ${base}${path} answered, but not as a vimrelay relay does (${kind}); is the relay URL right?\n`]);
      }
    }
  });
});
