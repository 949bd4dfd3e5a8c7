// The local relay's secrets, attacked as another account on the same machine would: as uid 65534
// (`setpriv`; the test runs as root in CI and skips otherwise, since only root can switch users)
// it probes every TCP port the relay's processes listen on for a V8 inspector / DevTools endpoint
// and asks each to write a file through Miniflare's loopback routes, or to print into the relay's
// log, and tries workerd's own way to report (a unix socket); it tries to read the relay's
// persisted state (the Hub's SQLite holds the token-signing key), and reads the processes' command
// lines for the owner secret; and it takes the relay's port between the launcher's check and
// workerd's bind, to be asked for /health and sent the owner secret. Every attempt must fail.
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mintToken } from '../../agent/relay/admin.ts';
import { freePort, startLocalRelay, type LocalRelay } from '../../scripts/local-relay.ts';
import { REPORT_MAX_BYTES } from '../../scripts/loopback-guard.ts';
import { asOther, describeAsOther, itAsOther, spawnAsOther } from '../helpers/other-user.ts';
import { groupPids } from '../helpers/procs.ts';
import { waitFor } from '../helpers/wait.ts';

/** Every TCP port the processes `pids` listen on (their socket inodes matched in /proc/net/tcp{,6}). */
function listeningPorts(pids: number[]): number[] {
  const inodes = new Set<string>();
  for (const pid of pids) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`, 'utf8'));
        if (m?.[1]) inodes.add(m[1]);
      }
    } catch {
      // gone meanwhile
    }
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // local_address is HEXIP:HEXPORT; state 0A is LISTEN; column 10 is the inode.
      if (cols[3] === '0A' && cols[9] && inodes.has(cols[9])) ports.add(parseInt(cols[1]?.split(':')[1] ?? '0', 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

/** Every path under `dir`, directories first. */
function walk(dir: string): string[] {
  const out = [dir];
  if (!lstatSync(dir).isDirectory()) return out;
  for (const entry of readdirSync(dir)) out.push(...walk(join(dir, entry)));
  return out;
}

// The probe another account runs: the DevTools discovery endpoints (Chrome DevTools Protocol,
// "HTTP endpoints": /json/version, /json/list) on every port; prints the ports that answer with a
// debugger URL.
const PROBE = `
const found = [];
for (const port of process.argv.slice(1).map(Number)) {
  for (const path of ['/json/version', '/json/list', '/json']) {
    try {
      const res = await fetch('http://127.0.0.1:' + port + path, { signal: AbortSignal.timeout(3000) });
      const text = await res.text();
      if (/webSocketDebuggerUrl|devtoolsFrontendUrl/.test(text)) found.push(port + path);
    } catch {}
  }
}
console.log(JSON.stringify(found));
`;

// The other probe: Miniflare's loopback routes (scripts/loopback-guard.ts) on every port, asked to
// write a file at argv[1] (a path steered out of Miniflare's temporary directory), directly and
// through the header that makes Miniflare dispatch on another URL, to list storage, to render
// the lines of argv[2] (a file only the relay's user may read) as an error's source, and to print
// into the relay's log (argv[4], with a terminal escape that clears the screen, and 4 MiB of it, at
// Miniflare's error level); prints each status, and whether an answer held argv[3] (that file's text).
const LOOPBACK_PROBE = `
const [target, secretFile, secretText, marker, ...ports] = process.argv.slice(1);
const steer = encodeURIComponent('/' + '../'.repeat(20) + target.slice(1));
const thrown = JSON.stringify({ name: 'Error', message: marker + '\\u001b[2J', stack: 'Error: ' + marker + '\\u001b[2J\\n    at probe (' + secretFile + ':1:1)' });
const flood = marker + '\\x1b[2J\\x1b]0;owned\\x07' + 'x'.repeat(4 * 1024 * 1024);
const statuses = [];
for (const port of ports) {
  const base = 'http://127.0.0.1:' + port;
  for (const [method, path, headers, body] of [
    ['POST', '/core/store-temp-file?extension=' + steer, {}, 'written by another account'],
    ['POST', '/core/log', { 'MF-Original-URL': base + '/core/store-temp-file?extension=' + steer, 'MF-Log-Level': '2' }, 'written by another account'],
    ['GET', '/core/do-storage/x', {}, undefined],
    ['POST', '/core/error', { Accept: 'text/html', 'Content-Type': 'application/json' }, thrown],
    ['POST', '/core/log', { 'MF-Log-Level': '1' }, flood],
  ]) {
    try {
      const res = await fetch(base + path, { method, headers, body, signal: AbortSignal.timeout(10000) });
      const text = await res.text();
      statuses.push(port + ' ' + method + ' ' + path.split('?')[0] + ' ' + res.status + (text.includes(secretText) ? ' leaked' : ''));
    } catch (error) {
      statuses.push(port + ' ' + method + ' ' + path.split('?')[0] + ' ' + String(error));
    }
  }
}
console.log(JSON.stringify(statuses));
`;

// Another account's try at workerd's own way to report: a request to the unix socket at argv[1];
// prints the status, or the error code.
const SOCKET_PROBE = `
import { request } from 'node:http';
const req = request({ socketPath: process.argv[1], method: 'POST', path: '/core/log', headers: { 'MF-Log-Level': '1' } }, (res) => {
  console.log(String(res.statusCode));
  res.resume();
});
req.on('error', (error) => console.log(error.code));
req.end('written by another account');
`;

/** workerd's loopback service address, from its command line (the relay's process group `pgid`). */
function workerdLoopback(pgid: number): string {
  for (const pid of groupPids(pgid)) {
    let args: string[];
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const arg = args.find((a) => a.startsWith('--external-addr=loopback='));
    if (arg) return arg.slice('--external-addr=loopback='.length);
  }
  throw new Error('no workerd with a loopback address in the relay\'s process group');
}

/** POSTs `body` to `path` on the unix socket `socketPath`; the status. */
function postToSocket(socketPath: string, path: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ socketPath, method: 'POST', path, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describeAsOther('the local relay, attacked from another local account (uid 65534)', () => {
  let dir: string;
  let relay: LocalRelay;
  let persistTo: string;
  const secret = `owner-secret-${Date.now()}-do-not-leak`;

  beforeAll(async () => {
    // The test's own directory is world-traversable, as a checkout in a home directory often is:
    // only the relay's own modes may keep the attacker out.
    dir = mkdtempSync(join(tmpdir(), 'vimrelay-secrets-'));
    chmodSync(dir, 0o755);
    persistTo = join(dir, 'state');
    // State left by an older run, world-readable: the launcher must tighten it.
    mkdirSync(join(persistTo, 'old'), { recursive: true, mode: 0o755 });
    writeFileSync(join(persistTo, 'old', 'left-over.sqlite'), 'old state', { mode: 0o644 });
    chmodSync(persistTo, 0o755);
    relay = await startLocalRelay({ persistTo, logFile: join(dir, 'relay.log'), vars: { OWNER_SECRET: secret } });
    // Create what must stay private: the signing key and a token record (Hub SQLite), OAuth KV.
    await mintToken(relay.url, secret, { kind: 'access', name: 'secrets-test' });
    const reg = await fetch(`${relay.url}/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ client_name: 'x', redirect_uris: ['http://127.0.0.1:1/cb'], token_endpoint_auth_method: 'none' }) });
    expect(reg.status).toBe(201);
  }, 90_000);

  afterAll(async () => {
    await relay?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('no port of the relay answers as a debugger', () => {
    const pids = groupPids(relay.process.pid ?? -1);
    expect(pids.length).toBeGreaterThan(1);
    const ports = listeningPorts(pids);
    expect(ports).toContain(Number(new URL(relay.url).port));
    const probe = asOther(process.execPath, ['--input-type=module', '-e', PROBE, ...ports.map(String)]);
    expect(probe.status, probe.stderr).toBe(0);
    expect(JSON.parse(probe.stdout)).toEqual([]);
  });

  it('no port of the relay writes a file for it, shows it a file, lists the relay\'s storage, nor prints into its log (Miniflare\'s loopback routes)', async () => {
    const pids = groupPids(relay.process.pid ?? -1);
    const ports = listeningPorts(pids).filter((port) => port !== Number(new URL(relay.url).port));
    expect(ports.length).toBeGreaterThan(0);
    const target = join(dir, 'written-by-another-account');
    const secretText = `private-key-material-${Date.now()}`;
    const secretFile = join(dir, 'private-key');
    writeFileSync(secretFile, `${secretText}\n`, { mode: 0o600 });
    const marker = `printed-by-another-account-${Date.now()}`;
    const logBefore = statSync(join(dir, 'relay.log')).size;
    const probe = asOther(process.execPath, ['--input-type=module', '-e', LOOPBACK_PROBE, target, secretFile, secretText, marker, ...ports.map(String)]);
    expect(probe.status, probe.stderr).toBe(0);
    const statuses = JSON.parse(probe.stdout) as string[];
    // Miniflare's loopback server (a port of the relay's own node process) refuses all five.
    const refused = statuses.filter((s) => / 403$/.test(s));
    expect(refused.length, statuses.join('\n')).toBeGreaterThanOrEqual(5);
    expect(statuses.filter((s) => / 2\d\d$/.test(s) || s.endsWith(' leaked'))).toEqual([]);
    expect(() => lstatSync(target)).toThrow();
    // Nothing of it reached the relay's log: no text, no escape, no 4 MiB; a refusal is named once per route.
    await waitFor(() => (readFileSync(join(dir, 'relay.log'), 'utf8').includes('refused POST /core/log') ? true : undefined), 10_000, 'the refusal in the relay log');
    const log = readFileSync(join(dir, 'relay.log'), 'utf8');
    expect(log).not.toContain(marker);
    expect(log).not.toContain(secretText);
    expect(log).not.toContain('\x1b');
    expect(statSync(join(dir, 'relay.log')).size - logBefore).toBeLessThan(4096);
  });

  it('workerd reports to the relay at a unix socket only the relay\'s user may reach; what it reports is escaped and capped in the log', async () => {
    const address = workerdLoopback(relay.process.pid ?? -1);
    expect(address).toMatch(/^unix:\//);
    const socketPath = address.slice('unix:'.length);
    const socketDir = lstatSync(join(socketPath, '..'));
    expect(socketDir.uid).toBe(process.getuid?.());
    expect(socketDir.mode & 0o777).toBe(0o700);
    const other = asOther(process.execPath, ['--input-type=module', '-e', SOCKET_PROBE, socketPath]);
    expect(other.status, other.stderr).toBe(0);
    expect(other.stdout.trim()).toBe('EACCES');
    // The relay's own reports (workerd's, sent here by the test as the relay's user) still arrive.
    const marker = `reported-by-workerd-${Date.now()}`;
    expect(await postToSocket(socketPath, '/core/log', { 'MF-Log-Level': '2' }, `${marker}\x1b[2J${'y'.repeat(1024 * 1024)}`)).toBe(204);
    const thrown = JSON.stringify({ name: 'Error', message: 'thrown', stack: `Error: ${marker}-thrown\u001b]0;title\u0007\n    at worker (worker.js:1:1)` });
    expect(await postToSocket(socketPath, '/core/error', { 'Content-Type': 'application/json' }, thrown)).toBe(500);
    const log = await waitFor(() => {
      const text = readFileSync(join(dir, 'relay.log'), 'utf8');
      return text.includes(`${marker}-thrown`) ? text : undefined;
    }, 10_000, 'the reports in the relay log');
    expect(log).toContain(`relay: workerd warn: ${marker}\\x1b[2Jyyy`);
    expect(log).toContain(`relay: the Worker threw: Error: ${marker}-thrown\\x1b]0;title\\x07\n    at worker (worker.js:1:1)`);
    expect(log).not.toContain('\x1b');
    expect(log).not.toContain('y'.repeat(REPORT_MAX_BYTES.log));
  });

  it('the persisted state is 0700/0600, an older run\'s included, and none of it can be read', () => {
    const paths = walk(persistTo);
    const sqlite = paths.filter((p) => p.endsWith('.sqlite'));
    expect(sqlite.some((p) => p.includes('Hub'))).toBe(true);
    for (const p of paths) {
      const mode = lstatSync(p).mode & 0o777;
      expect(mode, p).toBe(lstatSync(p).isDirectory() ? 0o700 : 0o600);
    }
    for (const file of sqlite) {
      const read = asOther('cat', [file]);
      expect(read.status, file).not.toBe(0);
      expect(read.stdout).toBe('');
    }
    expect(asOther('ls', [persistTo]).status).not.toBe(0);
    expect(asOther('cat', [join(dir, 'relay.log')]).status).not.toBe(0);
  });

  it('the owner secret is on no command line (every local user can read those)', () => {
    for (const pid of groupPids(relay.process.pid ?? -1)) {
      const cmdline = asOther('cat', [`/proc/${pid}/cmdline`]);
      expect(cmdline.stdout, `pid ${pid}`).not.toContain(secret);
    }
    expect(execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })).not.toContain(secret);
  });
});

// The squatter another account runs: it watches the process list for the relay's process on port
// argv[1], binds that port the moment it appears (before workerd, which takes a second or more to
// start), answers every request as a relay's /health would, and prints each request it gets.
const SQUATTER = `
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
const port = process.argv[1];
const starting = () => readdirSync('/proc').some((pid) => {
  try {
    const args = readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0');
    return args.some((a) => a.endsWith('relay-process.mjs')) && args[args.indexOf('--port') + 1] === port;
  } catch { return false; }
});
console.log('watching');
while (!starting()) await new Promise((r) => setTimeout(r, 5));
const server = createServer((req, res) => {
  console.log(JSON.stringify({ request: req.method + ' ' + req.url, authorization: req.headers.authorization ?? null }));
  res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true,"name":"vimrelay"}');
});
server.on('error', (error) => console.log('lost ' + error.code));
server.listen(Number(port), '127.0.0.1', () => console.log('bound'));
`;

itAsOther('a port another account takes while the relay starts: the launcher stops, and sends it nothing (no /health, no owner secret)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vimrelay-squat-'));
  const secret = `owner-secret-${Date.now()}-do-not-send`;
  const port = await freePort();
  const squatter = spawnAsOther(process.execPath, ['--input-type=module', '-e', SQUATTER, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let said = '';
  squatter.stdout?.setEncoding('utf8').on('data', (c: string) => (said += c));
  try {
    await waitFor(() => (said.includes('watching') ? true : undefined), 10_000, 'the squatter to watch');
    // As the launcher goes on once the relay is up: its first admin request carries the secret.
    const started = startLocalRelay({ port, persistTo: join(dir, 'state'), logFile: join(dir, 'relay.log'), vars: { OWNER_SECRET: secret } }).then(async (relay) => {
      await mintToken(relay.url, secret, { kind: 'access', name: 'squatted' }).finally(() => relay.stop());
    });
    await expect(started).rejects.toThrow(/the relay \(local workerd\) exited/);
    expect(said.split('\n').filter(Boolean)).toEqual(['watching', 'bound']);
  } finally {
    squatter.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);
