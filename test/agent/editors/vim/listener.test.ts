// The agent's Vim listener with real Vims (plugin/vim): the token and port files, the hello and
// its token, unique names with suffixes, a reconnecting Vim keeping its name, reconnection after the
// agent restarts, info updates, and a Vim's exit or :VimRelayDisconnect dropping its editor.
import { readFileSync, statSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEditorSource } from '../../../../agent/editors/source.ts';
import type { VimEditor } from '../../../../agent/editors/vim/editor.ts';
import { vimFiles } from '../../../../agent/editors/vim/listener.ts';
import { VimNames } from '../../../../agent/editors/vim/names.ts';
import { splitPieces, stageParams } from '../../../../agent/editors/vim/staging.ts';
import { startVimAgent, type VimAgentFixture } from '../../../helpers/vim.ts';
import { waitFor } from '../../../helpers/wait.ts';

const deadline = (): AbortSignal => AbortSignal.timeout(10_000);
const nameOf = (e: VimEditor): string => e.info().name;

/** Opens a raw channel and sends `messages` as lines, in one write; `closed` settles when it closes. */
async function rawHello(port: number, ...messages: unknown[]): Promise<{ closed: Promise<void>; socket: Socket }> {
  const socket = createConnection(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => {});
  socket.write(messages.map((m) => JSON.stringify(m) + '\n').join(''));
  return { closed, socket };
}

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
});

describe('Vim listener', () => {
  let agent: VimAgentFixture;
  beforeEach(async () => {
    agent = await startVimAgent();
  });
  afterEach(() => agent.stop());

  it('writes the port file and a private token file', () => {
    const files = vimFiles(agent.env);
    expect(readFileSync(files.port, 'utf8').trim()).toBe(String(agent.listener.port));
    expect(readFileSync(files.token, 'utf8').trim()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(files.token).mode & 0o777).toBe(0o600);
  });

  it('closes a channel whose hello has a wrong token, or whose first message is no hello', async () => {
    let changes = 0;
    agent.registry.onChange(() => changes++);
    const hello = { type: 'hello', token: 'wrong', name: 'x', instance: '1-1', pid: process.pid, version: '9001378', cwd: '/', current_file: null };
    const wrong = await rawHello(agent.listener.port, [1, hello]);
    await wrong.closed;
    const token = readFileSync(vimFiles(agent.env).token, 'utf8').trim();
    const notHello = await rawHello(agent.listener.port, [1, { ...hello, token, type: 'info' }]);
    await notHello.closed;
    // A good hello right behind a bad one, in the same packet, is not looked at.
    const behind = await rawHello(agent.listener.port, [1, hello], [2, { ...hello, token }]);
    await behind.closed;
    await new Promise((r) => setImmediate(r));
    expect(changes).toBe(0);
    // The right token is accepted (the same message otherwise): the refusals were for the token.
    const right = await rawHello(agent.listener.port, [1, { ...hello, token }]);
    await waitFor(() => (agent.registry.list().length === 1 ? true : undefined));
    right.socket.destroy();
    await waitFor(() => (agent.registry.list().length === 0 ? true : undefined));
  });

  it('registers a Vim as an editor with its kind, version, cwd and current file', async () => {
    const vim = await agent.vim({ name: 'proj', files: { 'a.txt': 'x\n' }, open: ['a.txt'] });
    const editor = await agent.editorOf(vim);
    expect(editor.info()).toMatchObject({ id: `vim-${vim.pid}`, kind: 'vim', name: 'proj', cwd: vim.cwd, current_file: `${vim.cwd}/a.txt`, pid: vim.pid });
    expect(editor.info().version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(await editor.evaluate('vimrelay#status()', deadline())).toBe('vimrelay: connected as proj');
  });

  it('is part of the editor source when enabled (as vimrelay agent and serve enable it)', async () => {
    const source = createEditorSource({ dirs: [], sockets: [], env: agent.env, vim: true });
    try {
      // The source's listener takes over the port file from the fixture's.
      const portFile = vimFiles(agent.env).port;
      await waitFor(() => (readFileSync(portFile, 'utf8').trim() !== String(agent.listener.port) ? true : undefined), 10_000, 'the port file');
      const vim = await agent.vim({ name: 'via-source' });
      const editor = await waitFor(() => source.get(`vim-${vim.pid}`), 10_000, 'the Vim in the source');
      expect(editor.info()).toMatchObject({ kind: 'vim', name: 'via-source' });
      expect(agent.registry.list()).toEqual([]);
    } finally {
      await source.stop();
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

  it('reconnects after the agent restarts, on the new port', async () => {
    const vim = await agent.vim();
    const before = await agent.editorOf(vim);
    const oldPort = agent.listener.port;
    await agent.restart();
    expect(agent.listener.port).not.toBe(oldPort);
    const after = await waitFor(() => {
      const e = agent.registry.get(before.id);
      return e && e !== before ? e : undefined;
    }, 10_000, 'the Vim to reconnect');
    expect(after.info().name).toBe('test');
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
