// The agent's Vim listener with real Vims (plugin/vim): the token and address files and the
// private socket directory, the handshake (challenge, proof, hello with Vim's proof; the token
// never sent), one listener per user (a second waits and takes over when the first stops, a dead
// one's socket is replaced), unique names with suffixes, a reconnecting Vim keeping its name,
// reconnection after the agent restarts, info updates, and a Vim's exit or :VimRelayDisconnect
// dropping its editor.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEditorSource } from '../../../../agent/editors/source.ts';
import type { VimEditor } from '../../../../agent/editors/vim/editor.ts';
import { proof } from '../../../../agent/editors/vim/handshake.ts';
import { VimListener, vimFiles } from '../../../../agent/editors/vim/listener.ts';
import { EditorRegistry } from '../../../../agent/editors/registry.ts';
import { VimNames } from '../../../../agent/editors/vim/names.ts';
import { splitPieces } from '../../../../agent/pieces.ts';
import { splitLinePieces, stageJson, stageParams } from '../../../../agent/editors/vim/staging.ts';
import { silentListener } from '../../../helpers/silent-listener.ts';
import { startVimAgent, type VimAgentFixture, type VimFixture } from '../../../helpers/vim.ts';
import { waitFor } from '../../../helpers/wait.ts';

const deadline = (): AbortSignal => AbortSignal.timeout(10_000);
const nameOf = (e: VimEditor): string => e.info().name;

/** A raw channel to the unix socket at `path`: lines sent as they are, JSON messages received. */
async function rawChannel(path: string): Promise<{ socket: Socket; closed: Promise<void>; received: unknown[]; send(...messages: unknown[]): void; next(): Promise<unknown> }> {
  const socket = createConnection(path);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => {});
  const received: unknown[] = [];
  let buffered = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
      received.push(JSON.parse(buffered.slice(0, nl)));
      buffered = buffered.slice(nl + 1);
    }
  });
  return {
    socket,
    closed,
    received,
    send: (...messages) => void socket.write(messages.map((m) => JSON.stringify(m) + '\n').join('')),
    next: () => waitFor(() => received.shift(), 10_000, 'a message from the agent'),
  };
}

const NONCE = 'a'.repeat(64);

describe('VimNames', () => {
  it('suffixes duplicates, frees names on release, and gives an instance back its last name', () => {
    const names = new VimNames();
    expect(names.claim('a', 'work')).toBe('work');
    expect(names.claim('b', 'work')).toBe('work#2');
    expect(names.claim('c', 'work')).toBe('work#3');
    names.release('a', 'work');
    names.release('b', 'work#2');
    // b comes back: it keeps work#2 although work is free; a newcomer gets the lowest free name.
    expect(names.claim('b', 'work')).toBe('work#2');
    expect(names.claim('d', 'work')).toBe('work');
    // a comes back while its name is taken: it gets the next free one.
    expect(names.claim('a', 'work')).toBe('work#4');
    // Asking for another name gets that name, not the remembered one.
    expect(names.claim('c', 'other')).toBe('other');
    // A table that remembers nothing (a restarted agent) goes by the name the Vim says it had.
    const fresh = new VimNames();
    expect(fresh.claim('b', 'work', 'work#2')).toBe('work#2');
    expect(fresh.claim('a', 'work', 'work')).toBe('work');
    expect(fresh.claim('e', 'work', 'elsewhere')).toBe('work#3');
  });
});

describe('staging long parameters', () => {
  it('splits within the size, never inside a surrogate pair, and replaces only long strings', () => {
    const s = 'ab😀cd😀😀e';
    for (const max of [2, 3, 4, 5]) {
      const pieces = splitPieces(s, max);
      expect(pieces.join('')).toBe(s);
      for (const p of pieces) {
        expect(p.length).toBeLessThanOrEqual(max);
        expect(p).not.toMatch(/[\uD800-\uDBFF]$|^[\uDC00-\uDFFF]/);
      }
    }
    let n = 0;
    const staged = stageParams({ text: 'x'.repeat(10), buffer: 3, short: 'abc' }, () => `id${++n}`, 4);
    expect(staged.params).toEqual({ text: { vimrelay_staged: 'id1' }, buffer: 3, short: 'abc' });
    expect(staged.pieces).toEqual([['id1', 'xxxx'], ['id1', 'xxxx'], ['id1', 'xx']]);
  });

  it('splits a list of lines into lists of about the size, a long line across several, and stages only long lists', () => {
    /** The lines as the plugin joins the pieces back (vimrelay.vim s:join_lines). */
    const join = (pieces: string[][]): string[] =>
      pieces.slice(1).reduce((lines, [first = '', ...rest]) => [...lines.slice(0, -1), `${lines.at(-1) ?? ''}${first}`, ...rest], pieces[0] ?? []);
    const lines = ['ab😀cd😀😀e', '', 'x', '', '😀'.repeat(9), 'end'];
    for (const max of [2, 3, 4, 7, 100]) {
      const pieces = splitLinePieces(lines, max);
      expect(join(pieces)).toEqual(lines);
      for (const p of pieces) {
        expect(p.join('').length).toBeLessThanOrEqual(max);
        expect(p.join('')).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
      }
    }
    expect(splitLinePieces([''], 4)).toEqual([['']]);
    let n = 0;
    const staged = stageParams({ lines: ['xxx', 'yy'], short: ['a'], buffers: [1, 'a.txt'] }, () => `id${++n}`, 6);
    expect(staged.params).toEqual({ lines: { vimrelay_staged: 'id1' }, short: ['a'], buffers: [1, 'a.txt'] });
    expect(staged.pieces).toEqual([['id1', ['xxx', '']], ['id1', ['yy']]]);
  });

  it('sends parameters whose JSON is still long once their long values are staged as pieces of that JSON', () => {
    let n = 0;
    // Long lists nested in a structure (apply_diff's hunks): no top-level value is long.
    const params = { hunks: [{ old: ['é😀x', 'y'], edits: [{ at: 0, add: ['z'] }] }], buffer: 1 };
    expect(stageParams(params, () => `id${++n}`, 8)).toEqual({ params, pieces: [] });
    n = 0;
    const staged = stageJson(stageParams(params, () => `id${++n}`, 8), () => `id${++n}`, 8);
    expect(staged.params).toEqual({ vimrelay_staged_json: 'id1' });
    expect(staged.pieces.every(([id, piece]) => id === 'id1' && typeof piece === 'string' && piece.length <= 8)).toBe(true);
    expect(JSON.parse(staged.pieces.map(([, piece]) => piece).join(''))).toEqual(params);
    // A long top-level string is staged as itself first; the rest goes whole when still long, and
    // parameters whose JSON is short go as they are.
    expect(stageJson({ params: { buffer: 1 }, pieces: [] }, () => 'never', 16)).toEqual({ params: { buffer: 1 }, pieces: [] });
    n = 0;
    const both = stageJson(stageParams({ text: 'x'.repeat(10), nested: { a: 'bcdefgh' } }, () => `id${++n}`, 8), () => `id${++n}`, 8);
    expect(both.params).toEqual({ vimrelay_staged_json: 'id2' });
    expect(JSON.parse(both.pieces.filter(([id]) => id === 'id2').map(([, p]) => p).join(''))).toEqual({ text: { vimrelay_staged: 'id1' }, nested: { a: 'bcdefgh' } });
  });
});

describe('Vim listener', () => {
  let agent: VimAgentFixture;
  beforeEach(async () => {
    agent = await startVimAgent();
  });
  afterEach(() => agent.stop());

  it('listens on a unix socket in a 0700 directory, writes its address and a private token file', () => {
    const files = vimFiles(agent.env);
    expect(agent.listener.address).toBe(`unix:${files.socket}`);
    expect(readFileSync(files.address, 'utf8').trim()).toBe(`unix:${files.socket}`);
    expect(statSync(files.socket).isSocket()).toBe(true);
    expect(statSync(dirname(files.socket)).mode & 0o777).toBe(0o700);
    expect(statSync(files.address).mode & 0o777).toBe(0o600);
    expect(readFileSync(files.token, 'utf8').trim()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(files.token).mode & 0o777).toBe(0o600);
    expect(agent.listener.port).toBeNull();
  });

  it('answers a challenge with a proof of the token (never the token), and admits only a hello with the right proof', async () => {
    const files = vimFiles(agent.env);
    const token = readFileSync(files.token, 'utf8').trim();
    const address = `unix:${files.socket}`;
    let changes = 0;
    agent.registry.onChange(() => changes++);
    const hello = { type: 'hello', name: 'x', chosen: true, instance: '1-1', pid: process.pid, version: '9001378', cwd: '/', current_file: null };

    // An old plugin's hello, token and all, as the first message: closed, and nothing said back.
    const old = await rawChannel(files.socket);
    old.send([1, { ...hello, token }]);
    await old.closed;
    expect(old.received).toEqual([]);

    // A challenge gets the agent's nonce and its proof over both nonces and the address.
    const wrong = await rawChannel(files.socket);
    wrong.send([0, { type: 'challenge', v: 2, nonce: NONCE }]);
    const answer = (await wrong.next()) as [number, { type: string; nonce: string; proof: string }];
    expect(answer[0]).toBe(0);
    expect(answer[1]).toEqual({ type: 'proof', nonce: expect.stringMatching(/^[0-9a-f]{64}$/), proof: proof(token, 'vimrelay-agent', address, NONCE, answer[1].nonce) });
    expect(JSON.stringify(answer)).not.toContain(token);
    // A hello whose proof is not over these nonces (a replayed one) is refused.
    wrong.send([1, { ...hello, proof: proof(token, 'vimrelay-vim', address, NONCE, NONCE) }]);
    await wrong.closed;

    // The agent's own proof sent back as Vim's (a reflection) is refused too.
    const reflected = await rawChannel(files.socket);
    reflected.send([0, { type: 'challenge', v: 2, nonce: NONCE }]);
    const theirs = (await reflected.next()) as [number, { nonce: string; proof: string }];
    reflected.send([1, { ...hello, proof: theirs[1].proof }]);
    await reflected.closed;
    await new Promise((r) => setImmediate(r));
    expect(changes).toBe(0);

    // The right proof is accepted (the same message otherwise): the refusals were for the proofs.
    const right = await rawChannel(files.socket);
    right.send([0, { type: 'challenge', v: 2, nonce: NONCE }]);
    const ours = (await right.next()) as [number, { nonce: string }];
    right.send([1, { ...hello, proof: proof(token, 'vimrelay-vim', address, ours[1].nonce, NONCE) }]);
    expect(await right.next()).toEqual([1, { ok: true, name: 'x' }]);
    await waitFor(() => (agent.registry.list().length === 1 ? true : undefined));
    right.socket.destroy();
    await waitFor(() => (agent.registry.list().length === 0 ? true : undefined));
  });

  it('leaves a live listener\'s socket alone, takes it over once that one stops, and removes its files when it stops', async () => {
    const files = vimFiles(agent.env);
    const vim = await agent.vim({ name: 'stays' });
    const first = await agent.editorOf(vim);
    const registry = new EditorRegistry();
    const second = await VimListener.start({ registry, env: agent.env });
    try {
      expect(second.address).toBeNull();
      expect(readFileSync(files.address, 'utf8').trim()).toBe(agent.listener.address);
      // The Vim is still the first listener's.
      expect(agent.registry.get(first.id)).toBe(first);
      expect(first.isClosed).toBe(false);
      await agent.listener.stop();
      // The second takes the socket over, and the Vim reconnects to it.
      await waitFor(() => registry.get(first.id), 10_000, 'the Vim on the second listener');
      expect(second.address).toBe(`unix:${files.socket}`);
      expect(readFileSync(files.address, 'utf8').trim()).toBe(`unix:${files.socket}`);
    } finally {
      await second.stop();
    }
    expect(existsSync(files.address)).toBe(false);
    expect(existsSync(files.socket)).toBe(false);
    await agent.restart();
  });

  it('replaces the socket of a listener that died without cleaning up', async () => {
    const files = vimFiles(agent.env);
    await agent.listener.stop();
    // A process that listened there and was killed: its socket file and address file stay.
    const dead = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(files.socket)}, () => console.log('up'))`], { stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise((resolve) => dead.stdout?.once('data', resolve));
    writeFileSync(files.address, `unix:${files.socket}\n`);
    dead.kill('SIGKILL');
    await new Promise((resolve) => dead.once('exit', resolve));
    expect(statSync(files.socket).isSocket()).toBe(true);
    await agent.restart();
    expect(agent.listener.address).toBe(`unix:${files.socket}`);
    const vim = await agent.vim({ name: 'after-death' });
    expect((await agent.editorOf(vim)).info().name).toBe('after-death');
  });

  it('registers a Vim as an editor with its kind, version, cwd and current file', async () => {
    const vim = await agent.vim({ name: 'proj', files: { 'a.txt': 'x\n' }, open: ['a.txt'] });
    const editor = await agent.editorOf(vim);
    expect(editor.info()).toMatchObject({ id: `vim-${vim.pid}`, kind: 'vim', name: 'proj', cwd: vim.cwd, current_file: `${vim.cwd}/a.txt`, pid: vim.pid });
    expect(editor.info().version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(((await editor.evaluate('vimrelay#status()', deadline())) as string[])[0]).toBe('vimrelay: connected as proj');
  });

  it('is part of the editor source when enabled (as vimrelay agent and serve enable it)', async () => {
    const source = createEditorSource({ dirs: [], sockets: [], env: agent.env, vim: true });
    try {
      // The fixture's listener holds the socket: the source's takes it over once it stops.
      await agent.listener.stop();
      const vim = await agent.vim({ name: 'via-source' });
      const editor = await waitFor(() => source.get(`vim-${vim.pid}`), 10_000, 'the Vim in the source');
      expect(editor.info()).toMatchObject({ kind: 'vim', name: 'via-source' });
      expect(agent.registry.list()).toEqual([]);
    } finally {
      await source.stop();
      await agent.restart();
    }
  });

  it('connects at startup with g:vimrelay_autoconnect, under g:vimrelay_name', async () => {
    const vim = await agent.vim({ name: null, cmds: ['let g:vimrelay_autoconnect = 1', 'let g:vimrelay_name = "auto"'] });
    expect((await agent.editorOf(vim)).info().name).toBe('auto');
  });

  it('keeps the info fresh when the cwd changes', async () => {
    const vim = await agent.vim({ files: { 'sub/b.txt': '' } });
    const editor = await agent.editorOf(vim);
    await editor.evaluate(`execute('cd sub')`, deadline());
    await waitFor(() => (editor.info().cwd === `${vim.cwd}/sub` ? true : undefined), 10_000, 'the new cwd');
  });

  it('suffixes duplicate names, and a Vim that reconnects keeps its name', async () => {
    const a = await agent.vim({ name: 'proj' });
    const editorA = await agent.editorOf(a);
    const b = await agent.vim({ name: 'proj' });
    const editorB = await agent.editorOf(b);
    expect([nameOf(editorA), nameOf(editorB)]).toEqual(['proj', 'proj#2']);

    // A quits: its editor goes. B's channel drops and B reconnects: still proj#2, though proj is free.
    await a.stop();
    await waitFor(() => (agent.registry.get(editorA.id) ? undefined : true), 10_000, 'the Vim that quit to go');
    await editorB.close();
    const again = await waitFor(() => {
      const e = agent.registry.get(editorB.id) as VimEditor | undefined;
      return e && e !== editorB ? e : undefined;
    }, 10_000, 'B to reconnect');
    expect(nameOf(again)).toBe('proj#2');
    const c = await agent.vim({ name: 'proj' });
    expect(nameOf(await agent.editorOf(c))).toBe('proj');
  });

  it('keeps each unnamed Vim its name across agent restarts, whatever order they reconnect in', async () => {
    // Two Vims in folders of the same name (w<n>/proj): proj and proj#2.
    const a = await agent.vim({ name: '', dir: 'proj' });
    const beforeA = await agent.editorOf(a);
    const b = await agent.vim({ name: '', dir: 'proj' });
    const beforeB = await agent.editorOf(b);
    const named = [nameOf(beforeA), nameOf(beforeB)];
    expect(named).toEqual(['proj', 'proj#2']);
    /** The editor of `vim` once it has reconnected to the restarted listener. */
    const back = async (vim: VimFixture, before: VimEditor): Promise<VimEditor> =>
      waitFor(() => {
        const e = agent.registry.get(`vim-${vim.pid}`) as VimEditor | undefined;
        return e && e !== before ? e : undefined;
      }, 10_000, `Vim ${vim.pid} to reconnect`);

    await agent.restart();
    expect([nameOf(await back(a, beforeA)), nameOf(await back(b, beforeB))]).toEqual(named);

    // A quits; after the next restart B comes back alone: still proj#2 (as it would to this
    // listener), and a newcomer gets the free proj.
    const stillB = await agent.editorOf(b);
    await a.stop();
    await agent.restart();
    expect(nameOf(await back(b, stillB))).toBe('proj#2');
    const c = await agent.vim({ name: '', dir: 'proj' });
    expect(nameOf(await agent.editorOf(c))).toBe('proj');
  });

  it('reconnects after the agent restarts', async () => {
    const vim = await agent.vim();
    const before = await agent.editorOf(vim);
    await agent.restart();
    const after = await waitFor(() => {
      const e = agent.registry.get(before.id);
      return e && e !== before ? e : undefined;
    }, 10_000, 'the Vim to reconnect');
    expect(after.info().name).toBe('test');
  });

  it('is not held up by a listener that accepts and never answers, as a stopped agent\'s does, and connects once the agent is back', async () => {
    const files = vimFiles(agent.env);
    await agent.listener.stop();
    const silent = await silentListener(files.socket);
    const { held } = silent;
    writeFileSync(files.address, `unix:${files.socket}\n`, { mode: 0o600 });
    const vim = await agent.vim();
    try {
      const first = await waitFor(() => held[0], 10_000, 'Vim to dial the silent listener');
      const marker = join(agent.home, 'alive');
      vim.ex(`call writefile(['alive'], ${JSON.stringify(marker)})`);
      await waitFor(() => (existsSync(marker) ? true : undefined), 10_000, 'Vim to run a command');
      // Vim ran it while its handshake was still waiting for the listener's proof.
      expect(first.ended).toBe(false);
      // It gives that listener up at the handshake's limit, and tries again.
      await waitFor(() => (first.ended && held.length > 1 ? true : undefined), 20_000, 'Vim to give up and dial again');
    } finally {
      await silent.close();
    }
    await agent.restart();
    expect(nameOf(await agent.editorOf(vim))).toBe('test');
  });

  it('drops the editor when the Vim exits, when it is killed, and on :VimRelayDisconnect (no reconnect)', async () => {
    const quits = await agent.vim({ name: 'q' });
    const killed = await agent.vim({ name: 'k' });
    const leaves = await agent.vim({ name: 'd' });
    const ids = await Promise.all([quits, killed, leaves].map(async (v) => (await agent.editorOf(v)).id));
    await quits.stop();
    await killed.kill();
    leaves.ex('VimRelayDisconnect');
    await waitFor(() => (ids.some((id) => agent.registry.get(id)) ? undefined : true), 10_000, 'every editor to go');
    // A disconnected Vim stays away (its reconnect timer is off), though it still runs.
    await new Promise((r) => setTimeout(r, 500));
    expect(agent.registry.list()).toEqual([]);
    expect(leaves.proc.exitCode).toBe(null);
  });
});
