// The msgpack-RPC connection (agent/editors/nvim/connection.ts) against a listener that answers
// the handshake as Neovim would and then says what it likes: what is not msgpack-RPC ends the
// connection and fails its requests as EditorGone (the agent lives on); answers to nothing and
// notifications in between do not disturb the answer a request waits for; a request made of the
// agent is answered at once with an error. On a real Neovim: a plugin's rpcrequest() to the
// agent's channel, which would block the editor until answered, gets its error at once. Many
// requests under one call's signal share one abort listener (agent/editors/waiting.ts): no leak
// warning, none left behind, and an abort rejects them all.
import { getEventListeners } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeMultiStream, encode } from '@msgpack/msgpack';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EditorGone } from '../../../../agent/editors/call.ts';
import { NvimConnection } from '../../../../agent/editors/nvim/connection.ts';
import { nvimDriver, type NvimDriver } from '../../../helpers/editors.ts';

/** What the impostor does with each request after the handshake: the bytes it writes back. */
type Script = (request: [number, number, string, unknown[]], socket: Socket) => void;

/** A unix socket that answers the handshake's request 0 as Neovim does, then follows `script`. */
async function impostor(path: string, script: Script): Promise<{ seen: unknown[]; close(): Promise<void> }> {
  const seen: unknown[] = [];
  const server: Server = createServer((socket) => {
    socket.on('error', () => {});
    void (async () => {
      try {
        for await (const message of decodeMultiStream(socket)) {
          seen.push(message);
          const request = message as [number, number, string, unknown[]];
          if (request[1] === 0) socket.write(encode([1, 0, null, [1, {}]]));
          else script(request, socket);
        }
      } catch {
        // The agent closed it.
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('NvimConnection with a peer that is not quite Neovim', () => {
  let dir: string;
  let count = 0;
  const address = (): string => join(dir, `nvim.impostor.${++count}`);
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'vimrelay-rpc-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ends the connection on bytes that are not msgpack, and fails the request as EditorGone', async () => {
    const path = address();
    const peer = await impostor(path, (_request, socket) => socket.write(Buffer.from([0xc1, 0xc1])));
    const connection = await NvimConnection.open(path, { signal: AbortSignal.timeout(5_000) });
    await expect(connection.request('nvim_exec_lua', ['return 1', []])).rejects.toBeInstanceOf(EditorGone);
    await connection.closed;
    expect(connection.isClosed).toBe(true);
    await expect(connection.request('nvim_exec_lua', ['return 1', []])).rejects.toBeInstanceOf(EditorGone);
    await peer.close();
  });

  it('ends the connection on a message that is not msgpack-RPC', async () => {
    for (const reply of [42, 'hello', [7, 1, 2], [1, 'x'], [2, 5, []]]) {
      const path = address();
      const peer = await impostor(path, (_request, socket) => socket.write(encode(reply)));
      const connection = await NvimConnection.open(path, { signal: AbortSignal.timeout(5_000) });
      await expect(connection.request('nvim_exec_lua', ['return 1', []]), JSON.stringify(reply)).rejects.toBeInstanceOf(EditorGone);
      await peer.close();
    }
  });

  it('drops answers to nothing and hands notifications on, then resolves the answer it waits for', async () => {
    const path = address();
    const peer = await impostor(path, ([, id], socket) => {
      // An answer to no request, a notification, then the answer, in one write; Neovim's handles
      // (ext types) decode to their numbers.
      socket.write(Buffer.concat([encode([1, id + 1000, null, 'stray']), encode([2, 'vimrelay_info', [{ cwd: '/x' }]]), encode([1, id, null, { ok: true, id }])]));
    });
    const connection = await NvimConnection.open(path, { signal: AbortSignal.timeout(5_000) });
    const notes: [string, unknown[]][] = [];
    connection.onNotification((method, args) => notes.push([method, args]));
    const answer = (await connection.request('nvim_exec_lua', ['return 1', []])) as { ok: boolean; id: number };
    expect(answer.ok).toBe(true);
    expect(notes).toEqual([['vimrelay_info', [{ cwd: '/x' }]]]);
    expect(connection.isClosed).toBe(false);
    await connection.close();
    await peer.close();
  });

  it('says what Neovim answered when it answers with an error', async () => {
    const path = address();
    const peer = await impostor(path, ([, id], socket) => socket.write(encode([1, id, [1, 'Vim:E492: Not an editor command: Foo'], null])));
    const connection = await NvimConnection.open(path, { signal: AbortSignal.timeout(5_000) });
    await expect(connection.request('nvim_command', ['Foo'])).rejects.toThrow('nvim_command: Vim:E492: Not an editor command: Foo');
    expect(connection.isClosed).toBe(false);
    await connection.close();
    await peer.close();
  });

  it('refuses arguments msgpack cannot carry, sending nothing, and stays usable', async () => {
    const path = address();
    const peer = await impostor(path, ([, id], socket) => socket.write(encode([1, id, null, 'ok'])));
    const connection = await NvimConnection.open(path, { signal: AbortSignal.timeout(5_000) });
    let deep: unknown[] = [];
    for (let i = 0; i < 200; i++) deep = [deep];
    await expect(connection.request('nvim_exec_lua', ['return 1', [10n]])).rejects.toThrow(/Unrecognized object/);
    await expect(connection.request('nvim_exec_lua', ['return 1', deep])).rejects.toThrow(/Too deep/);
    expect(await connection.request('nvim_exec_lua', ['return 1', []])).toBe('ok');
    // Only the handshake's request and the last one reached the peer.
    expect(peer.seen.length).toBe(2);
    await connection.close();
    await peer.close();
  });

  it('answers a request made of it at once, with an error', async () => {
    const path = address();
    const peer = await impostor(path, ([, id], socket) => {
      if (id !== 4242) socket.write(encode([0, 4242, 'vimrelay_anything', []]));
    });
    const connection = await NvimConnection.open(path, { signal: AbortSignal.timeout(5_000) });
    void connection.request('nvim_exec_lua', ['return 1', []]).catch(() => {});
    await expect.poll(() => peer.seen.find((m) => Array.isArray(m) && m[0] === 1 && m[1] === 4242)).toEqual([1, 4242, [0, 'vimrelay serves no requests on this channel'], null]);
    await connection.close();
    await peer.close();
  });

  it('rejects every request waiting under an aborted signal with its reason, leaves no listener, and drops their late answers', async () => {
    const path = address();
    const held: [number, Socket][] = [];
    const peer = await impostor(path, ([, id], socket) => void held.push([id, socket]));
    const connection = await NvimConnection.open(path, { signal: AbortSignal.timeout(5_000) });
    const controller = new AbortController();
    const calls = Array.from({ length: 40 }, (_, i) => connection.request('nvim_eval', [String(i)], controller.signal));
    const other = connection.request('nvim_eval', ['"other"'], AbortSignal.timeout(30_000));
    await expect.poll(() => held.length).toBe(41);
    // One listener for the 40 (the agent's log would warn past 10), and the other signal's own.
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    const reason = new Error('cancelled');
    controller.abort(reason);
    const settled = await Promise.allSettled(calls);
    expect(settled.every((s) => s.status === 'rejected' && s.reason === reason)).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    for (const [id, socket] of held) socket.write(encode([1, id, null, `answer ${id}`]));
    expect(await other).toBe(`answer ${held[40]?.[0]}`);
    expect(connection.isClosed).toBe(false);
    await connection.close();
    await peer.close();
  });
});

describe('NvimConnection on a real Neovim', () => {
  let f: NvimDriver | undefined;
  afterEach(async () => {
    await f?.stop();
    f = undefined;
  });

  it("answers a plugin's rpcrequest() to the agent's channel at once, so the editor is not left waiting", async () => {
    f = await nvimDriver({ files: { 'a.txt': 'alpha\n' }, open: ['a.txt'] });
    const [mine] = (await f.nvim.client.request('nvim_get_api_info', [])) as [number];
    const outcome = await f.nvim.lua<[boolean, string]>(
      `local mine = ...
       for _, chan in ipairs(vim.api.nvim_list_chans()) do
         if chan.mode == 'rpc' and chan.id ~= mine then return { pcall(vim.rpcrequest, chan.id, 'vimrelay_anything', 1) } end
       end`,
      mine,
    );
    expect(outcome[0]).toBe(false);
    expect(outcome[1]).toContain('vimrelay serves no requests on this channel');
    expect(await f.call('read_buffer', {})).toMatchObject({ ok: true, data: { lines: ['alpha'] } });
  });

  it('sends 40 requests at once under one signal with no leak warning, and leaves no listener on it', async () => {
    // A leak warning would fail this test (test/setup/no-warnings.ts).
    f = await nvimDriver();
    const connection = await NvimConnection.open(f.nvim.socket, { signal: AbortSignal.timeout(5_000) });
    try {
      const controller = new AbortController();
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => connection.request('nvim_eval', [`${i} * 2`], controller.signal)));
      expect(answers).toEqual(Array.from({ length: 40 }, (_, i) => i * 2));
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    } finally {
      await connection.close();
    }
  });
});
