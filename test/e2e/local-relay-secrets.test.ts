// The local relay's secrets, attacked as another account on the same machine would: as uid 65534
// (`setpriv`; the test runs as root in CI and skips otherwise, since only root can switch users)
// it probes every TCP port the relay's processes listen on for a V8 inspector / DevTools endpoint
// and asks each to write a file through Miniflare's loopback routes, tries to read the relay's
// persisted state (the Hub's SQLite holds the token-signing key), and reads the processes' command
// lines for the owner secret; and it takes the relay's port between the launcher's check and
// workerd's bind, to be asked for /health and sent the owner secret. Every attempt must fail.
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mintToken } from '../../agent/relay/admin.ts';
import { freePort, startLocalRelay, type LocalRelay } from '../../scripts/local-relay.ts';
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
// through the header that makes Miniflare dispatch on another URL, to list storage, and to render
// the lines of argv[2] (a file only the relay's user may read) as an error's source; prints each
// status, and whether an answer held argv[3] (that file's text).
const LOOPBACK_PROBE = `
const [target, secretFile, secretText, ...ports] = process.argv.slice(1);
const steer = encodeURIComponent('/' + '../'.repeat(20) + target.slice(1));
const thrown = JSON.stringify({ name: 'Error', message: 'probe', stack: 'Error: probe\\n    at probe (' + secretFile + ':1:1)' });
const statuses = [];
for (const port of ports) {
  const base = 'http://127.0.0.1:' + port;
  for (const [method, path, headers, body] of [
    ['POST', '/core/store-temp-file?extension=' + steer, {}, 'written by another account'],
    ['POST', '/core/log', { 'MF-Original-URL': base + '/core/store-temp-file?extension=' + steer, 'MF-Log-Level': '2' }, 'written by another account'],
    ['GET', '/core/do-storage/x', {}, undefined],
    ['POST', '/core/error', { Accept: 'text/html', 'Content-Type': 'application/json' }, thrown],
  ]) {
    try {
      const res = await fetch(base + path, { method, headers, body, signal: AbortSignal.timeout(3000) });
      const text = await res.text();
      statuses.push(port + ' ' + path.split('?')[0] + ' ' + res.status + (text.includes(secretText) ? ' leaked' : ''));
    } catch (error) {
      statuses.push(port + ' ' + path.split('?')[0] + ' ' + String(error));
    }
  }
}
console.log(JSON.stringify(statuses));
`;

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

  it('no port of the relay writes a file for it, shows it a file, nor lists the relay\'s storage (Miniflare\'s loopback routes)', async () => {
    const pids = groupPids(relay.process.pid ?? -1);
    const ports = listeningPorts(pids).filter((port) => port !== Number(new URL(relay.url).port));
    expect(ports.length).toBeGreaterThan(0);
    const target = join(dir, 'written-by-another-account');
    const secretText = `private-key-material-${Date.now()}`;
    const secretFile = join(dir, 'private-key');
    writeFileSync(secretFile, `${secretText}\n`, { mode: 0o600 });
    const probe = asOther(process.execPath, ['--input-type=module', '-e', LOOPBACK_PROBE, target, secretFile, secretText, ...ports.map(String)]);
    expect(probe.status, probe.stderr).toBe(0);
    const statuses = JSON.parse(probe.stdout) as string[];
    // Miniflare's loopback server (a port of the relay's own node process) refuses the three, and
    // answers the error report with a plain 500.
    expect(statuses.filter((s) => /\/core\/(store-temp-file|log|do-storage\/x) 403$/.test(s)).length, statuses.join('\n')).toBeGreaterThanOrEqual(3);
    expect(statuses.filter((s) => s.endsWith('/core/error 500')).length, statuses.join('\n')).toBeGreaterThanOrEqual(1);
    expect(statuses.filter((s) => / 2\d\d$/.test(s) || s.endsWith(' leaked'))).toEqual([]);
    expect(() => lstatSync(target)).toThrow();
    // The error report went to the relay's log, the file's text with it nowhere.
    const reported = `relay: the Worker threw: Error: probe\n    at probe (${secretFile}:1:1)`;
    const log = await waitFor(() => {
      const text = readFileSync(join(dir, 'relay.log'), 'utf8');
      return text.includes(reported) ? text : undefined;
    }, 10_000, 'the error report in the relay log');
    expect(log).not.toContain(secretText);
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
    return args.some((a) => a.endsWith('relay-process.ts')) && args[args.indexOf('--port') + 1] === port;
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
