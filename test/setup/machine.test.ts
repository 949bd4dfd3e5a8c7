/**
 * What `npm test` fetches when the machine lacks it (setup/machine.ts, scripts/editors/machine.ts):
 * with a PATH lacking tmux, tmux is fetched from the machine's own release into a cache (here a
 * temporary one), said, and a tmux server runs from the fetched binary; pylsp, fetched the same
 * way, answers `initialize` over stdio from its fetched packages; a program on PATH is left
 * alone. The package lists stay cached between runs (`.cache/editors/apt/`); the packages
 * themselves are small (tmux, python3-pylsp: what the machine has installed is not fetched).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { machineRelease } from '../../scripts/editors/sources.ts';
import { onPath } from '../helpers/on-path.ts';
import { tempDir } from '../helpers/temp.ts';
import { provide } from './machine.ts';

/** Why nothing can be fetched here (no Debian or Ubuntu archive in the apt sources), or null. */
const noArchive = ((): string | null => {
  try {
    machineRelease();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
})();

/** A fetch reads the release's package lists and downloads packages: a liveness bound, not a timing claim. */
const FETCH_MS = 300_000;

/** A directory on no PATH: nothing the tests need is in it. */
function emptyPath(): string {
  const dir = join(tempDir('vimrelay-no-tools-'), 'bin');
  mkdirSync(dir);
  return dir;
}

describe.skipIf(noArchive !== null)(`npm test's set-up, fetching what PATH lacks${noArchive ? ` (skipped: ${noArchive})` : ''}`, () => {
  it('fetches tmux into its cache, says so, and runs a tmux server from it', { timeout: FETCH_MS }, () => {
    const cache = tempDir('vimrelay-machine-');
    const lacking = emptyPath();
    expect(onPath('tmux', lacking)).toBeUndefined();

    const { path, said, unavailable } = provide(['tmux'], lacking, { cache });

    expect(unavailable).toEqual({});
    expect(said).toEqual([expect.stringMatching(new RegExp(`^tmux: not on PATH; fetched \\w+ \\w+'s tmux \\(tmux [^)]+\\) in ${join(cache, 'tmux/bin')}$`))]);
    const tmux = onPath('tmux', path);
    expect(tmux).toBe(join(cache, 'tmux/bin/tmux'));
    const socket = join(cache, 'tmux.sock');
    const run = (...args: string[]) => spawnSync(tmux ?? '', ['-S', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env: { ...process.env, PATH: `${path}:/usr/bin:/bin` } });
    expect(run('new-session', '-d', '-x', '80', '-y', '24').status).toBe(0);
    try {
      const pid = Number(run('display-message', '-p', '#{pid}').stdout.trim());
      // The server is the unpacked binary, on the machine's libc.
      expect(readlinkSync(`/proc/${pid}/exe`)).toBe(join(cache, 'tmux/root/usr/bin/tmux'));
      expect(run('-V').stdout).toMatch(/^tmux \d/);
    } finally {
      run('kill-server');
    }
    // A later run reuses it, saying so.
    expect(provide(['tmux'], lacking, { cache }).said).toEqual([expect.stringMatching(/^tmux: not on PATH; reusing \w+ \w+'s tmux /)]);
  });

  it('fetches pylsp, which answers initialize over stdio from its fetched packages', { timeout: FETCH_MS }, async () => {
    const cache = tempDir('vimrelay-machine-');
    const { path, said, unavailable } = provide(['pylsp'], emptyPath(), { cache });

    expect(unavailable).toEqual({});
    expect(said).toEqual([expect.stringMatching(/^pylsp: not on PATH; fetched \w+ \w+'s python3-pylsp \(.*python3-pylsp [^,)]+.*\) in /)]);
    const pylsp = onPath('pylsp', path) ?? '';
    expect(pylsp).toBe(join(cache, 'pylsp/bin/pylsp'));

    // Python names each module it imports and where from (-v): pylsp's own must be the fetched copy.
    const server = spawn(pylsp, [], { env: { ...process.env, PYTHONVERBOSE: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    server.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const answer = new Promise<{ id: number; result: { capabilities: Record<string, unknown>; serverInfo?: { name: string } } }>((resolve, reject) => {
      let stdout = Buffer.alloc(0);
      server.stdout.on('data', (chunk: Buffer) => {
        stdout = Buffer.concat([stdout, chunk]);
        const header = /^Content-Length: (\d+)\r\n(?:[^\r\n]+\r\n)*\r\n/.exec(stdout.toString('latin1'));
        if (header && stdout.length >= header[0].length + Number(header[1])) resolve(JSON.parse(stdout.subarray(header[0].length, header[0].length + Number(header[1])).toString('utf8')));
      });
      server.on('exit', (code) => reject(new Error(`pylsp exited (${code}) before answering: ${stderr.slice(-2000)}`)));
    });
    // LSP 3.17 §initialize, framed as the base protocol says (Content-Length header, then the JSON).
    const request = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: null, rootUri: null, capabilities: {} } });
    server.stdin.write(`Content-Length: ${Buffer.byteLength(request)}\r\n\r\n${request}`);
    try {
      const response = await answer;
      expect(response.id).toBe(1);
      expect(response.result.capabilities).toHaveProperty('hoverProvider', true);
      expect(response.result.serverInfo?.name).toBe('pylsp');
      expect(stderr).toContain(join(cache, 'pylsp/root/usr/lib/python3/dist-packages/pylsp/'));
    } finally {
      server.kill();
    }
  });

  it('leaves a program on PATH alone, fetching nothing', () => {
    const cache = tempDir('vimrelay-machine-');
    const dir = join(tempDir('vimrelay-on-path-'), 'bin');
    mkdirSync(dir);
    const fake = join(dir, 'tmux');
    spawnSync('sh', ['-c', `printf '#!/bin/sh\\n' > '${fake}' && chmod +x '${fake}'`]);

    expect(provide(['tmux'], dir, { cache })).toEqual({ path: dir, said: [], unavailable: {} });
    expect(existsSync(cache) ? readdirSync(cache) : []).toEqual([]);
  });
});

it('names what to install when there is nothing to fetch from, for the tests to skip with', () => {
  const { path, said, unavailable } = provide(['tmux', 'clangd'], emptyPath(), {
    cache: tempDir('vimrelay-machine-'),
    aptCache: tempDir('vimrelay-apt-'),
    release: () => {
      throw new Error('this machine is neither Debian nor Ubuntu (os-release ID "fedora")');
    },
  });
  expect(said).toEqual([]);
  expect(path).not.toContain('vimrelay-machine-');
  expect(unavailable).toEqual({
    tmux: 'tmux is not on PATH and could not be fetched (this machine is neither Debian nor Ubuntu (os-release ID "fedora")): install the package tmux',
    clangd: 'clangd is not on PATH and could not be fetched (this machine is neither Debian nor Ubuntu (os-release ID "fedora")): install the package clangd',
  });
});
