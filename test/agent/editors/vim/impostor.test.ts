// Vim talks only to its own agent, by attack: a listener of a second local account (uid 65534,
// test/agent/editors/vim/fixtures/impostor.mjs) where a real Vim running plugin/vim dials — on the
// TCP port of its g:vimrelay_port (the port an agent used to listen on), on a unix socket that a
// stale address file names, and relaying the real agent's TCP answers to a Vim that dialled
// another port. Each time the listener sends the JSON channel's ex / call / normal commands before
// and after Vim speaks and a made-up proof: Vim runs none of them, never sends the token (nor
// anything from which it could be guessed: only a nonce), refuses the listener, and keeps trying.
// Runs only as root (CI does): only root can act as a second account.
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { EditorRegistry } from '../../../../agent/editors/registry.ts';
import { VimListener } from '../../../../agent/editors/vim/listener.ts';
import { vimFiles } from '../../../../agent/editors/vim/rendezvous.ts';
import { writePrivateFile } from '../../../../agent/config/private-file.ts';
import { loadOrCreateLocalToken } from '../../../../agent/local/token.ts';
import { freePort } from '../../../../scripts/local-relay.ts';
import { isolatedHome } from '../../../helpers/home.ts';
import { asOther, describeAsOther, spawnAsOther } from '../../../helpers/other-user.ts';
import { startVim, type VimFixture } from '../../../helpers/vim.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { tempDir } from '../../../helpers/temp.ts';

const IMPOSTOR = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'impostor.mjs');

interface Impostor {
  /** What Vim sent on each connection that has ended. */
  connections(): string[];
  stop(): void;
}

/** Starts the impostor as uid 65534 on `listen` (a port or a socket path); resolves once it listens. */
async function impostor(listen: string, marker: string, relayTo?: number): Promise<Impostor> {
  const proc: ChildProcess = spawnAsOther(process.execPath, [IMPOSTOR, listen, marker, ...(relayTo === undefined ? [] : [String(relayTo)])], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  await waitFor(() => (out.includes('listening\n') ? true : undefined), 10_000, 'the impostor to listen');
  return {
    connections: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => (JSON.parse(l) as { received: string }).received),
    stop: () => void proc.kill('SIGKILL'),
  };
}

describeAsOther('Vim and a listener that is not its agent', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  let token: string;
  let marker: string;
  let shared: string;
  let vim: VimFixture | undefined;
  let attacker: Impostor | undefined;
  let listener: VimListener | undefined;

  beforeEach(() => {
    ({ home, env } = isolatedHome('vimrelay-impostor-'));
    token = loadOrCreateLocalToken(vimFiles(env).token);
    marker = join(home, 'pwned');
    // Where the other account can listen: a sticky directory it can reach.
    const root = tempDir('vimrelay-impostor-shared-');
    chmodSync(root, 0o755);
    shared = join(root, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
  });
  afterEach(async () => {
    await vim?.stop();
    attacker?.stop();
    await listener?.stop();
    vim = attacker = listener = undefined;
    rmSync(dirname(shared), { recursive: true, force: true });
  });

  /** Starts a Vim that connects; waits until it has tried the impostor twice (so it refused and retried). */
  async function victim(cmds: string[] = []): Promise<void> {
    const cwd = join(home, 'work');
    mkdirSync(cwd, { recursive: true });
    vim = startVim(env, cwd, { name: 'victim', cmds });
    await waitFor(() => ((attacker?.connections().length ?? 0) >= 2 ? true : undefined), 20_000, 'Vim to try the impostor twice');
  }

  /** Vim's own account of why it is not connected. */
  async function status(): Promise<string> {
    const file = join(home, 'status.txt');
    vim?.ex(`call writefile(vimrelay#status(), '${file}')`);
    return waitFor(() => {
      const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
      return text.endsWith('\n') ? text : undefined;
    }, 10_000, 'the status');
  }

  function expectNothingGiven(): void {
    const sent = attacker?.connections() ?? [];
    expect(sent.length).toBeGreaterThanOrEqual(2);
    for (const bytes of sent) {
      expect(bytes).not.toContain(token);
      // Only the challenge: no hello, no proof of Vim's, nothing about the editor.
      expect(bytes).toMatch(/^\[0,\{[^\n]*"type":"challenge"[^\n]*\}\]\n$/);
      expect(bytes).not.toMatch(/hello|proof|victim/);
    }
    expect(existsSync(marker)).toBe(false);
  }

  it('on the TCP port its g:vimrelay_port names (an agent\'s old port), gives nothing and runs nothing', async () => {
    const port = await freePort();
    attacker = await impostor(String(port), marker);
    await victim([`let g:vimrelay_port = ${port}`]);
    expectNothingGiven();
    expect(await status()).toContain(`the listener at 127.0.0.1:${port} did not prove it is your agent`);
  });

  it('on a unix socket a stale address file names, gives nothing and runs nothing', async () => {
    const socket = join(shared, 'vim.sock');
    attacker = await impostor(socket, marker);
    writePrivateFile(vimFiles(env).address, `unix:${socket}\n`);
    await victim();
    expectNothingGiven();
    expect(await status()).toContain(`the listener at unix:${socket} did not prove it is your agent`);
  });

  // Without a runtime directory the socket's directory is a fixed name in the shared temporary
  // directory (vimrelay-<uid>), which another account can make first (and listen in). The same
  // here with a runtime directory that is such a shared directory: the place is computed the same
  // way whatever this machine's /run/user holds meanwhile.
  it('where another account made the socket\'s directory first (and listens in it), the agent listens in a fresh one of its own, and Vim reaches it', async () => {
    const own = { ...env, XDG_RUNTIME_DIR: shared };
    const squatted = dirname(vimFiles(own).socket);
    expect(dirname(squatted)).toBe(shared);
    expect(asOther('mkdir', ['-m', '0777', squatted]).status).toBe(0);
    attacker = await impostor(join(squatted, 'vim.sock'), marker);
    const registry = new EditorRegistry();
    listener = await VimListener.start({ registry, env: own });
    const address = readFileSync(vimFiles(own).address, 'utf8').trim();
    expect(address).toMatch(new RegExp(`^unix:${squatted}-[^/]+/vim\\.sock$`));
    const dir = dirname(address.slice('unix:'.length));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const cwd = join(home, 'work');
    mkdirSync(cwd, { recursive: true });
    vim = startVim(own, cwd, { name: 'victim' });
    await waitFor(() => (registry.list().length === 1 ? true : undefined), 20_000, 'Vim to reach its agent');
    expect(attacker.connections()).toEqual([]);
    expect(existsSync(marker)).toBe(false);
    await vim.stop();
    vim = undefined;
    await listener.stop();
    listener = undefined;
    expect(existsSync(dir)).toBe(false);
  });

  it('relaying the real agent from another port, gets the agent\'s proof refused (it names the agent\'s address)', async () => {
    listener = await VimListener.start({ registry: new EditorRegistry(), env, port: 0 });
    const agentPort = listener.port;
    if (agentPort === null) throw new Error('no TCP port');
    const port = await freePort();
    attacker = await impostor(String(port), marker, agentPort);
    await victim([`let g:vimrelay_port = ${port}`]);
    expectNothingGiven();
    expect(await status()).toContain('did not prove it is your agent');
  });
});
