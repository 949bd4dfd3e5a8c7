// The Hub with a fake agent over a real WebSocket to /agent: device authentication, hello and
// welcome, the editor registry and public ids, routing a call and its result, and every way a call
// can end without one (socket closed, revocation, cancellation). The deadline is tested in
// config/deadline.test.ts, which runs with a short CALL_DEADLINE_MS.
import { runInDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS, WIRE_VERSION } from '../../protocol/index.ts';
import type { Hub } from '../../worker/hub/hub.ts';
import { admin, BASE, deviceJwt, editor, errorCode, FakeAgent, mcpClient, mcpHeaders, mint, outcomeOf, postMcp, rawCall, relay, uniqueName, upgrade } from './helpers.ts';

let access: Awaited<ReturnType<typeof mint>>;
const agents: FakeAgent[] = [];

/** A device with a fresh device JWT and an agent online with `editors`, closed after the test. */
async function device(name: string, editors = [editor('nvim-1')]) {
  const minted = await deviceJwt(name);
  const { agent, welcome } = await FakeAgent.online(minted.token, editors);
  agents.push(agent);
  return { minted, agent, welcome };
}

async function listEditors(): Promise<{ editors: { id: string; device: string }[]; count: number }> {
  const outcome = outcomeOf(await rawCall(access.token, 'list_editors', {}));
  if (!outcome.ok) throw new Error(`list_editors failed: ${outcome.error.code}`);
  return outcome.data as { editors: { id: string; device: string }[]; count: number };
}

beforeAll(async () => {
  access = await mint({ kind: 'access', name: 'hub-tests' });
});

afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
  expect((await listEditors()).count).toBe(0);
});

describe('agent authentication', () => {
  it('a request without an upgrade is 426', async () => {
    const res = await relay('/agent');
    expect(res.status).toBe(426);
    expect(res.headers.get('Upgrade')).toBe('websocket');
  });

  it('no token, a garbage token, an access token: 401 and no socket', async () => {
    const none = await upgrade(null);
    expect(none.status).toBe(401);
    expect(none.webSocket).toBeNull();
    expect(none.headers.get('WWW-Authenticate')).toBe('Bearer realm="vimrelay"');

    const garbage = await upgrade('garbage');
    expect(garbage.status).toBe(401);
    expect(garbage.webSocket).toBeNull();
    expect(garbage.headers.get('WWW-Authenticate')).toContain('error="invalid_token"');

    const wrongKind = await upgrade(access.token);
    expect(wrongKind.status).toBe(401);
    expect(wrongKind.webSocket).toBeNull();
    expect(wrongKind.headers.get('WWW-Authenticate')).toContain('wrong type');
  });

  it('a JWT of a revoked device is refused', async () => {
    const minted = await deviceJwt(uniqueName('revoked-dev'));
    expect((await admin('DELETE', `/devices/${minted.device.id}`)).status).toBe(200);
    const res = await upgrade(minted.token);
    expect(res.status).toBe(401);
    expect(res.webSocket).toBeNull();
    expect(res.headers.get('WWW-Authenticate')).toContain('revoked');
  });
});

describe('hello and the registry', () => {
  it('welcomes the device by id and name and lists its editors under public ids', async () => {
    const { minted, welcome } = await device('laptop', [editor('nvim-4242', { cwd: '/src/app', current_file: '/src/app/main.ts' })]);
    expect(welcome).toEqual({ type: 'welcome', v: WIRE_VERSION, device: { id: minted.device.id, name: 'laptop' } });
    expect(await listEditors()).toEqual({
      count: 1,
      editors: [
        { id: 'laptop/nvim-4242', device: 'laptop', kind: 'nvim', version: '0.7.2', name: 'nvim-4242', cwd: '/src/app', current_file: '/src/app/main.ts', pid: 4242, waiting_for: null, ui: null, uptime_s: null },
      ],
    });
  });

  it('`editors` replaces the device\'s list; closing the socket empties it', async () => {
    const { agent } = await device(uniqueName('desk'), [editor('nvim-1'), editor('vim-2', { kind: 'vim' })]);
    expect((await listEditors()).count).toBe(2);
    agent.send({ type: 'editors', editors: [editor('nvim-3')] });
    // Messages on one socket are handled in order: the call below is sent after the update.
    const { editors } = await listEditorsAfterRoundTrip(agent);
    expect(editors.map((e) => e.id)).toEqual([expect.stringMatching(/\/nvim-3$/)]);
    await agent.close();
    expect((await listEditors()).count).toBe(0);
  });

  it('the heartbeat is answered with pong', async () => {
    const { agent } = await device(uniqueName('beat'));
    const pong = new Promise<string>((resolve) => agent.ws.addEventListener('message', (e) => e.data === 'pong' && resolve(e.data)));
    agent.send('ping');
    expect(await pong).toBe('pong');
  });

  it.each([
    ['a v1-shaped hello', (agent: FakeAgent) => agent.hello([editor('nvim-1')], WIRE_VERSION + 1)],
    ['a hello of another shape', (agent: FakeAgent) => agent.send({ type: 'hello', v: WIRE_VERSION + 1, machine: 'x', editors: { nvim: 1 } })],
  ])('a wire version mismatch (%s) gets VERSION_MISMATCH and a close, and registers nothing', async (_label, hello) => {
    const minted = await deviceJwt(uniqueName('future'));
    const agent = await FakeAgent.connect(minted.token);
    hello(agent);
    const fault = await agent.next('error');
    expect(fault.code).toBe('VERSION_MISMATCH');
    expect(fault.message).toContain(`${WIRE_VERSION + 1}`);
    expect((await agent.closed).code).toBe(4002);
    expect((await listEditors()).count).toBe(0);
  });

  it('a message before hello is refused and the socket closed', async () => {
    const minted = await deviceJwt(uniqueName('rude'));
    const agent = await FakeAgent.connect(minted.token);
    agent.send({ type: 'editors', editors: [editor('nvim-1')] });
    expect((await agent.next('error')).code).toBe('BAD_MESSAGE');
    expect((await agent.closed).code).toBe(4003);
    expect((await listEditors()).count).toBe(0);
  });

  it('a second connection of the same device replaces the first', async () => {
    const minted = await deviceJwt(uniqueName('twice'));
    const first = await FakeAgent.online(minted.token, [editor('nvim-old')], { replyToClose: false });
    const second = await FakeAgent.online(minted.token, [editor('nvim-new')]);
    agents.push(second.agent);
    expect((await first.agent.closed).code).toBe(4000);

    // Deliver the old socket's close now, after the new socket's hello: the worst order. The
    // old connection's end must not take the new connection's editors with it.
    const hub = env.HUB.get(env.HUB.idFromName('owner'));
    const delivered = await runInDurableObject(hub, async (instance: Hub, state) => {
      const old = state.getWebSockets(minted.device.id).filter((ws) => ws.readyState !== WebSocket.READY_STATE_OPEN);
      for (const ws of old) await instance.webSocketClose(ws, 4000, 'replaced by a newer connection', true);
      return old.length;
    });
    expect(delivered).toBe(1);
    const { editors } = await listEditorsAfterRoundTrip(second.agent);
    expect(editors.map((e) => e.id)).toEqual([`${minted.device.name}/nvim-new`]);
  });
});

describe('the registry under the Hub\'s own connections', () => {
  const hubState = <T>(fn: (sql: SqlStorage) => T): Promise<T> => runInDurableObject(env.HUB.get(env.HUB.idFromName('owner')), (_i: Hub, state) => fn(state.storage.sql));

  it('a live connection whose rows were deleted under the Hub is asked for its list again (a second welcome), and the listing waits for it', async () => {
    const { agent, minted } = await device(uniqueName('wiped'), [editor('nvim-1'), editor('nvim-2')]);
    // What a second relay on the same storage did at its start: every row it did not hold, gone.
    await hubState((sql) => sql.exec('DELETE FROM editors'));
    const listing = listEditors();
    expect(await agent.next('welcome')).toMatchObject({ device: { id: minted.device.id } });
    agent.send({ type: 'editors', editors: [editor('nvim-1'), editor('nvim-2')] });
    expect((await listing).editors.map((e) => e.id)).toEqual([`${minted.device.name}/nvim-1`, `${minted.device.name}/nvim-2`]);
    // And a call routes again.
    const pending = rawCall(access.token, 'read_buffer', { editor: `${minted.device.name}/nvim-2` });
    expect((await agent.next('call')).editor).toBe('nvim-2');
    await agent.close();
    expect(errorCode(outcomeOf(await pending))).toBe('EDITOR_OFFLINE');
  });

  it('rows of a connection this Hub does not hold are never listed nor routed to, nor removed', async () => {
    const other = await deviceJwt(uniqueName('elsewhere'));
    await hubState((sql) => sql.exec('INSERT INTO editors (device_id, local_id, conn_id, info) VALUES (?, ?, ?, ?)', other.device.id, 'nvim-9', 'another-relays-connection', JSON.stringify(editor('nvim-9'))));
    try {
      expect((await listEditors()).count).toBe(0);
      const named = outcomeOf(await rawCall(access.token, 'read_buffer', { editor: `${other.device.name}/nvim-9` }));
      expect(errorCode(named)).toBe('NO_EDITOR');
      expect(await hubState((sql) => sql.exec('SELECT COUNT(*) AS n FROM editors WHERE conn_id = ?', 'another-relays-connection').one().n)).toBe(1);
    } finally {
      await hubState((sql) => sql.exec('DELETE FROM editors WHERE conn_id = ?', 'another-relays-connection'));
    }
  });

  it('NO_EDITOR names as reconnecting only a device whose agent this Hub lost, not one merely seen lately', async () => {
    const seen = await deviceJwt(uniqueName('seen-elsewhere'));
    // Another relay on the same storage marks its own device seen; this Hub never held it.
    await hubState((sql) => sql.exec('UPDATE devices SET last_seen_at = ? WHERE id = ?', Date.now(), seen.device.id));
    const { agent, minted } = await device(uniqueName('lost-here'));
    await agent.close();
    const none = outcomeOf(await rawCall(access.token, 'read_buffer', {}));
    expect(errorCode(none)).toBe('NO_EDITOR');
    const reconnecting = (!none.ok && (none.error.reconnecting as string[])) || [];
    expect(reconnecting).toContain(minted.device.name);
    expect(reconnecting).not.toContain(seen.device.name);
    // Its agent back: no longer lost.
    const back = await device(minted.device.name);
    await back.agent.close();
  });
});

/** list_editors after a full call round trip through `agent`, so that its earlier messages were handled. */
async function listEditorsAfterRoundTrip(agent: FakeAgent): Promise<{ editors: { id: string }[] }> {
  const pending = rawCall(access.token, 'get_state_brief', {}, 'sync');
  const call = await agent.next('call');
  agent.answer(call.id, { ok: false, error: { code: 'UNSUPPORTED', message: 'sync', hint: 'sync' } });
  await pending;
  return listEditors();
}

describe('routing a call', () => {
  it('sends the call to the named editor with its local id, and returns the agent\'s result', async () => {
    await device('alpha', [editor('nvim-1')]);
    const beta = await device('beta', [editor('nvim-7')]);
    const data = { buf: 1, path: '/x.txt', changedtick: 5, total_lines: 1, start_line: 1, end_line: 1, lines: ['héllo'], truncated: false, next_start_line: null };

    const pending = rawCall(access.token, 'read_buffer', { editor: 'beta/nvim-7', start_line: 1 }, 41);
    const call = await beta.agent.next('call');
    expect(call).toEqual({
      type: 'call',
      id: expect.any(String),
      tool: 'read_buffer',
      editor: 'nvim-7',
      args: { start_line: 1 },
      scopes: ['read', 'write', 'open', 'save', 'exec', 'terminal'],
      client: 'pat:hub-tests',
      client_name: 'hub-tests (personal access token)',
      deadline_ms: 30_000,
    });
    beta.agent.answer(call.id, { ok: true, data });
    const response = await pending;
    expect(response.id).toBe(41);
    expect(response.result?.structuredContent).toEqual(data);
    expect(JSON.parse(response.result?.content[0]?.text ?? '')).toEqual(data);
  });

  it('accepts an agent-local id when it is unique', async () => {
    const { agent } = await device(uniqueName('solo'), [editor('nvim-55'), editor('nvim-56')]);
    const pending = rawCall(access.token, 'get_state_brief', { editor: 'nvim-56' });
    const call = await agent.next('call');
    expect(call.editor).toBe('nvim-56');
    expect(call.args).toEqual({});
    agent.answer(call.id, { ok: false, error: { code: 'EDITOR_ERROR', message: 'E492', hint: 'h' } });
    const outcome = outcomeOf(await pending);
    expect(outcome).toEqual({ ok: false, error: { code: 'EDITOR_ERROR', message: 'E492', hint: 'h' } });
  });

  it('AMBIGUOUS_EDITOR and EDITOR_NOT_FOUND list the ids, and send nothing', async () => {
    const { agent, minted } = await device(uniqueName('pair'), [editor('nvim-1'), editor('nvim-2')]);
    const ids = [`${minted.device.name}/nvim-1`, `${minted.device.name}/nvim-2`];

    const ambiguous = outcomeOf(await rawCall(access.token, 'get_state_brief', {}));
    expect(errorCode(ambiguous)).toBe('AMBIGUOUS_EDITOR');
    expect(!ambiguous.ok && ambiguous.error.editors).toEqual(ids);

    const missing = outcomeOf(await rawCall(access.token, 'get_state_brief', { editor: 'nowhere/nvim-9' }));
    expect(errorCode(missing)).toBe('EDITOR_NOT_FOUND');
    expect(!missing.ok && missing.error.editors).toEqual(ids);

    // Nothing reached the agent: the next message it gets is this call.
    const pending = rawCall(access.token, 'get_state_brief', { editor: ids[1] });
    const call = await agent.next('call');
    expect(call.editor).toBe('nvim-2');
    agent.answer(call.id, { ok: false, error: { code: 'UNSUPPORTED', message: 'm', hint: 'h' } });
    expect(errorCode(outcomeOf(await pending))).toBe('UNSUPPORTED');
  });

  it('PERMISSION_DENIED for a token without the scope, before anything is sent', async () => {
    const { agent } = await device(uniqueName('guarded'));
    const reader = await mint({ kind: 'access', name: uniqueName('reader'), scopes: ['read'] });
    // /mcp answers such a call 403 before the Hub (oauth.test.ts); the Hub enforces scopes again.
    const hub = env.HUB.get(env.HUB.idFromName('owner'));
    const denied = await hub.callTool({ tool: 'write_buffer', args: { buffer: 1, text: 'x', expected_changedtick: 1 }, scopes: ['read'], client: 'pat:x', callKey: 'guarded:1' });
    expect(errorCode(denied)).toBe('PERMISSION_DENIED');
    const pending = rawCall(reader.token, 'read_buffer', {});
    const call = await agent.next('call');
    expect(call.tool).toBe('read_buffer');
    expect(call.scopes).toEqual(['read']);
    expect(call.client).toBe(`pat:${reader.name}`);
    // Named beside the id as the dashboard names it, for the agent's prompts and audit log.
    expect(call.client_name).toBe(`${reader.name} (personal access token)`);
    agent.answer(call.id, { ok: false, error: { code: 'BUFFER_NOT_FOUND', message: 'm', hint: 'h' } });
    expect(errorCode(outcomeOf(await pending))).toBe('BUFFER_NOT_FOUND');
  });

  it('data that does not match the tool\'s outputSchema becomes INTERNAL, not a broken result', async () => {
    const { agent } = await device(uniqueName('drift'));
    const pending = rawCall(access.token, 'read_buffer', {});
    const call = await agent.next('call');
    agent.answer(call.id, { ok: true, data: { buf: 1, lines: 'not an array' } });
    const outcome = outcomeOf(await pending);
    expect(errorCode(outcome)).toBe('INTERNAL');
    expect(!outcome.ok && outcome.error.message).toContain('read_buffer');
  });

  it('a result validated by a real MCP client against the outputSchema', async () => {
    const { agent } = await device(uniqueName('sdk'));
    const client = await mcpClient(access.token);
    await client.listTools();
    const brief = {
      mode: 'n',
      cwd: '/p',
      buffers: [],
      buffers_truncated: false,
      modified_buffers: [],
      windows: [],
      terminals: [],
    };
    const pending = client.callTool({ name: 'get_state_brief', arguments: {} });
    const call = await agent.next('call');
    agent.answer(call.id, { ok: true, data: brief });
    const result = await pending;
    expect(result.structuredContent).toEqual(brief);
    await client.close();
  });
});

describe('agent-level tools (connect_editor)', () => {
  const listed = { action: 'listed', editor: null, candidates: [], candidates_total: 0, candidates_truncated: false };

  it('NO_EDITOR when no agent is connected, saying to start one', async () => {
    const outcome = outcomeOf(await rawCall(access.token, 'connect_editor', {}));
    expect(errorCode(outcome)).toBe('NO_EDITOR');
    expect(!outcome.ok && outcome.error.hint).toMatch(/vimrelay agent/);
  });

  it('goes to the only agent, even one with no editor, with an empty editor and without `device`', async () => {
    const { agent, minted } = await device(uniqueName('bare'), []);
    const pending = rawCall(access.token, 'connect_editor', { device: minted.device.name, socket_path: '/tmp/nvim.sock' });
    const call = await agent.next('call');
    expect(call).toMatchObject({ tool: 'connect_editor', editor: '', args: { socket_path: '/tmp/nvim.sock' } });
    agent.answer(call.id, { ok: true, data: listed });
    expect(outcomeOf(await pending)).toEqual({ ok: true, data: listed });
  });

  it('with several agents: `device` picks one by name; none is AMBIGUOUS_EDITOR, an unknown one EDITOR_NOT_FOUND, both listing devices', async () => {
    const a = await device(uniqueName('desk'));
    const b = await device(uniqueName('laptop'), []);
    const names = [a.minted.device.name, b.minted.device.name].sort();

    const ambiguous = outcomeOf(await rawCall(access.token, 'connect_editor', {}));
    expect(errorCode(ambiguous)).toBe('AMBIGUOUS_EDITOR');
    expect(!ambiguous.ok && ambiguous.error.devices).toEqual(names);
    const unknown = outcomeOf(await rawCall(access.token, 'connect_editor', { device: 'nowhere' }));
    expect(errorCode(unknown)).toBe('EDITOR_NOT_FOUND');
    expect(!unknown.ok && unknown.error.devices).toEqual(names);

    // Nothing reached either agent: the next message b gets is this call.
    const pending = rawCall(access.token, 'connect_editor', { device: b.minted.device.name, index: 2 });
    const call = await b.agent.next('call');
    expect(call).toMatchObject({ editor: '', args: { index: 2 } });
    b.agent.answer(call.id, { ok: false, error: { code: 'INVALID_ARGUMENT', message: 'no candidate 2', hint: 'h' } });
    expect(errorCode(outcomeOf(await pending))).toBe('INVALID_ARGUMENT');
  });
});

describe('a call that ends without a result', () => {
  it('EDITOR_OFFLINE when the agent socket closes mid-call; the registry empties', async () => {
    const { agent } = await device(uniqueName('flaky'));
    const pending = rawCall(access.token, 'write_buffer', { buffer: 1, text: 'new', expected_changedtick: 3 });
    await agent.next('call');
    await agent.close();
    const outcome = outcomeOf(await pending);
    expect(errorCode(outcome)).toBe('EDITOR_OFFLINE');
    expect(!outcome.ok && outcome.error.hint).toMatch(/read_buffer/);
    expect(!outcome.ok && outcome.error.hint).toMatch(/never repeat/);
    expect((await listEditors()).count).toBe(0);
  });

  it('revoking the device disconnects it at once, mid-call', async () => {
    const { agent, minted } = await device(uniqueName('stolen'));
    const pending = rawCall(access.token, 'read_buffer', {});
    await agent.next('call');
    const res = await admin('DELETE', `/devices/${minted.device.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ device: minted.device, disconnected: 1, revoked_at: expect.any(String) });
    expect((await agent.next('error')).code).toBe('REVOKED');
    expect((await agent.closed).code).toBe(4001);
    expect(errorCode(outcomeOf(await pending))).toBe('EDITOR_OFFLINE');
    expect((await listEditors()).count).toBe(0);
    expect((await upgrade(minted.token)).status).toBe(401);
  });

  it('notifications/cancelled cancels the call on the agent and answers CANCELLED', async () => {
    const { agent } = await device(uniqueName('cancel'));
    const pending = rawCall(access.token, 'read_buffer', {}, 'req-77');
    const call = await agent.next('call');
    const cancel = await postMcp(access.token, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'req-77', reason: 'user' } });
    expect(cancel.status).toBe(202);
    expect(await agent.next('cancel')).toEqual({ type: 'cancel', id: call.id });
    expect(errorCode(outcomeOf(await pending))).toBe('CANCELLED');

    // A result arriving after the cancellation is dropped; the link stays usable.
    agent.answer(call.id, { ok: true, data: {} });
    const next = rawCall(access.token, 'get_state_brief', {});
    const call2 = await agent.next('call');
    agent.answer(call2.id, { ok: false, error: { code: 'UNSUPPORTED', message: 'm', hint: 'h' } });
    expect(errorCode(outcomeOf(await next))).toBe('UNSUPPORTED');
  });

  it('the MCP client going away cancels the call on the agent', async () => {
    const { agent } = await device(uniqueName('gone'));
    const controller = new AbortController();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'read_buffer', arguments: {} } });
    const request = exports.default.fetch(new Request(`${BASE}/mcp`, { method: 'POST', headers: mcpHeaders(access.token), body, signal: controller.signal }));
    const settled = request.then(
      () => 'answered',
      () => 'aborted',
    );
    const call = await agent.next('call');
    controller.abort();
    // request.signal fires in the Worker (enable_request_signal), which cancels through the Hub.
    expect(await agent.next('cancel')).toEqual({ type: 'cancel', id: call.id });
    expect(await settled).toBe('aborted');
  });

  it('another token cannot cancel the call (call keys are scoped by token)', async () => {
    const { agent } = await device(uniqueName('mine'));
    const pending = rawCall(access.token, 'read_buffer', {}, 7);
    const call = await agent.next('call');
    const other = await mint({ kind: 'access', name: uniqueName('other') });
    // The 202 comes after the Hub has handled the cancellation.
    expect((await postMcp(other.token, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } })).status).toBe(202);
    // Same id with another type is another request too.
    expect((await postMcp(access.token, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: '7' } })).status).toBe(202);
    agent.answer(call.id, { ok: false, error: { code: 'NO_MATCH', message: 'still mine', hint: 'h' } });
    const outcome = outcomeOf(await pending);
    expect(!outcome.ok && outcome.error.message).toBe('still mine');
  });
});

describe('bad messages', () => {
  it('an unparseable message gets BAD_MESSAGE and the link stays up', async () => {
    const { agent } = await device(uniqueName('noisy'));
    agent.send('this is not json');
    expect((await agent.next('error')).code).toBe('BAD_MESSAGE');
    agent.send({ type: 'result' });
    expect((await agent.next('error')).code).toBe('BAD_MESSAGE');
    const pending = rawCall(access.token, 'get_state_brief', {});
    const call = await agent.next('call');
    agent.answer(call.id, { ok: false, error: { code: 'UNSUPPORTED', message: 'm', hint: 'h' } });
    expect(errorCode(outcomeOf(await pending))).toBe('UNSUPPORTED');
  });

  it('a message over the wire limit is refused', async () => {
    const { agent } = await device(uniqueName('huge'));
    const pending = rawCall(access.token, 'get_state_brief', {});
    const call = await agent.next('call');
    agent.answer(call.id, { ok: false, error: { code: 'EDITOR_ERROR', message: 'x'.repeat(LIMITS.maxWireMessageBytes), hint: 'h' } });
    expect((await agent.next('error')).message).toContain(`over ${LIMITS.maxWireMessageBytes} bytes`);
    expect(errorCode(outcomeOf(await pending))).toBe('INTERNAL');
  });

  it('a malformed result for a pending call answers that call INTERNAL at once', async () => {
    const { agent } = await device(uniqueName('buggy'));
    const pending = rawCall(access.token, 'get_state_brief', {});
    const call = await agent.next('call');
    agent.send({ type: 'result', id: call.id, outcome: { ok: 'maybe' } });
    expect((await agent.next('error')).code).toBe('BAD_MESSAGE');
    expect(errorCode(outcomeOf(await pending))).toBe('INTERNAL');
  });

  it('a device cannot answer a call sent to another device', async () => {
    const a = await device(uniqueName('honest'));
    const b = await device(uniqueName('sneaky'));
    const pending = rawCall(access.token, 'get_state_brief', { editor: `${a.minted.device.name}/nvim-1` });
    const call = await a.agent.next('call');
    b.agent.answer(call.id, { ok: true, data: { forged: true } });
    // b's messages are handled in order: once its next one is refused, the forged result was seen.
    b.agent.send('sync');
    expect((await b.agent.next('error')).code).toBe('BAD_MESSAGE');
    // It was dropped: a's real result is the one returned.
    a.agent.answer(call.id, { ok: false, error: { code: 'UNSUPPORTED', message: 'real', hint: 'h' } });
    const outcome = outcomeOf(await pending);
    expect(!outcome.ok && outcome.error.message).toBe('real');
  });
});
