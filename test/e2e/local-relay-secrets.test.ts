// The local relay's secrets, attacked as another account on the same machine would: as uid 65534
// (`setpriv`; the test runs as root in CI and skips otherwise, since only root can switch users)
// it probes every TCP port the relay's processes listen on for a V8 inspector / DevTools endpoint
// and asks each to write a file through Miniflare's loopback routes, tries to read the relay's
// persisted state (the Hub's SQLite holds the token-signing key), and reads the processes' command
// lines for the owner secret. Every attempt must fail.
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mintToken } from '../../agent/relay/admin.ts';
import { startLocalRelay, type LocalRelay } from '../../scripts/local-relay.ts';
import { asOther, describeAsOther } from '../helpers/other-user.ts';
import { processes } from '../helpers/procs.ts';


/** The pids of the processes in process group `pgid`. */
function groupPids(pgid: number): number[] {
  return processes()
    .filter((p) => p.pgrp === pgid)
    .map((p) => p.pid);
}

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
// through the header that makes Miniflare dispatch on another URL; prints each status.
const WRITE_PROBE = `
const [target, ...ports] = process.argv.slice(1);
const steer = encodeURIComponent('/' + '../'.repeat(20) + target.slice(1));
const statuses = [];
for (const port of ports) {
  const base = 'http://127.0.0.1:' + port;
  for (const [path, headers] of [
    ['/core/store-temp-file?extension=' + steer, {}],
    ['/core/log', { 'MF-Original-URL': base + '/core/store-temp-file?extension=' + steer, 'MF-Log-Level': '2' }],
    ['/core/do-storage/x', {}],
  ]) {
    try {
      const res = await fetch(base + path, { method: path.startsWith('/core/do') ? 'GET' : 'POST', headers, body: path.startsWith('/core/do') ? undefined : 'written by another account', signal: AbortSignal.timeout(3000) });
      statuses.push(port + path.split('?')[0] + ' ' + res.status);
    } catch (error) {
      statuses.push(port + path.split('?')[0] + ' ' + String(error));
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

  it('no port of the relay writes a file for it, nor lists the relay\'s storage (Miniflare\'s loopback routes)', () => {
    const pids = groupPids(relay.process.pid ?? -1);
    const ports = listeningPorts(pids).filter((port) => port !== Number(new URL(relay.url).port));
    expect(ports.length).toBeGreaterThan(0);
    const target = join(dir, 'written-by-another-account');
    const probe = asOther(process.execPath, ['--input-type=module', '-e', WRITE_PROBE, target, ...ports.map(String)]);
    expect(probe.status, probe.stderr).toBe(0);
    const statuses = JSON.parse(probe.stdout) as string[];
    // Miniflare's loopback server (the port of the relay's own node process) refuses all three.
    expect(statuses.filter((s) => s.endsWith(' 403')).length).toBeGreaterThanOrEqual(3);
    expect(statuses.filter((s) => / 2\d\d$/.test(s))).toEqual([]);
    expect(() => lstatSync(target)).toThrow();
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
