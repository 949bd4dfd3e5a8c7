// /mcp in the 2026-07-28 era, request by request (PROTOCOL.md "MCP endpoint"): server/discover,
// resultType and the cache hints, header/body agreement, the error mapping, and the 2025 era on
// the same URL answering as before. Then cancellation per request in both eras, with a fake agent
// over a real WebSocket: a 2026-07-28 request is cancelled by its stream closing; a 2025
// `notifications/cancelled` cancels the one call of its token with that id, and none when two
// calls of one token share the id.
import { exports } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../protocol/index.ts';
import { BASE, deviceJwt, editor, errorCode, FakeAgent, mcpHeaders, mint, outcomeOf, postMcp, rawCall, relay, uniqueName } from './helpers.ts';

const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '0' },
};

interface RpcAnswer {
  id?: unknown;
  result?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

/** A 2026-07-28 request: the envelope in `_meta` and the headers that must agree with it. */
function modern(method: string, params: Record<string, unknown> = {}, id: string | number = 1): { body: unknown; headers: Record<string, string> } {
  const name: Record<string, string> = typeof params.name === 'string' ? { 'Mcp-Name': params.name } : {};
  return {
    body: { jsonrpc: '2.0', id, method, params: { ...params, _meta: ENVELOPE } },
    headers: { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': method, ...name },
  };
}

let token: string;
const agents: FakeAgent[] = [];

beforeAll(async () => {
  token = (await mint({ kind: 'access', name: uniqueName('modern') })).token;
});

afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

async function post(request: { body: unknown; headers: Record<string, string> }, headers: Record<string, string> = {}): Promise<{ status: number; json: RpcAnswer }> {
  const res = await postMcp(token, request.body, { ...request.headers, ...headers });
  return { status: res.status, json: (await res.json()) as RpcAnswer };
}

describe('the 2026-07-28 era', () => {
  it('server/discover names the versions, the tools capability, the instructions and the server', async () => {
    const { status, json } = await post(modern('server/discover'));
    expect(status).toBe(200);
    expect(json.result).toMatchObject({
      supportedVersions: [MODERN],
      capabilities: { tools: {} },
      instructions: expect.stringMatching(/list_editors/),
      resultType: 'complete',
      ttlMs: 300_000,
      cacheScope: 'public',
    });
    expect(json.result?._meta?.['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'vimrelay' });
  });

  it('tools/list carries resultType and cache hints, private (the list follows the token), in catalog order every time', async () => {
    const first = await post(modern('tools/list'));
    const second = await post(modern('tools/list', {}, 2));
    expect(first.json.result).toMatchObject({ resultType: 'complete', ttlMs: 300_000, cacheScope: 'private' });
    const names = (r: RpcAnswer): string[] => (r.result?.tools as { name: string }[]).map((t) => t.name);
    expect(names(first.json)).toEqual(TOOLS.map((t) => t.name));
    expect(names(second.json)).toEqual(names(first.json));
  });

  it('every result carries resultType, a tool result too', async () => {
    const { json } = await post(modern('tools/call', { name: 'list_editors', arguments: {} }));
    expect(json.result).toMatchObject({ resultType: 'complete', structuredContent: { editors: [], count: 0 } });
  });

  it('headers that disagree with the body, or are missing, are 400 HeaderMismatch (-32020)', async () => {
    const call = modern('tools/call', { name: 'list_editors', arguments: {} });
    for (const headers of [{ 'Mcp-Name': 'read_buffer' }, { 'Mcp-Method': 'tools/list' }] as Record<string, string>[]) {
      const { status, json } = await post(call, headers);
      expect(status, JSON.stringify(headers)).toBe(400);
      expect(json.error?.code).toBe(-32020);
    }
    const { 'Mcp-Name': _dropped, ...withoutName } = call.headers;
    const missing = await post({ body: call.body, headers: withoutName });
    expect(missing.status).toBe(400);
    expect(missing.json.error?.code).toBe(-32020);
  });

  it('a revision it does not serve is 400 -32022 naming the supported ones', async () => {
    const request = modern('tools/list');
    const body = { ...(request.body as object), params: { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } };
    const { status, json } = await post({ body, headers: { ...request.headers, 'MCP-Protocol-Version': '2099-01-01' } });
    expect(status).toBe(400);
    expect(json.error?.code).toBe(-32022);
    expect(json.error?.data).toMatchObject({ supported: [MODERN], requested: '2099-01-01' });
  });

  it('an unknown method, or one the revision removed, is 404 -32601', async () => {
    for (const method of ['no/such/method', 'ping', 'initialize']) {
      const { status, json } = await post(modern(method));
      expect(status, method).toBe(404);
      expect(json.error?.code, method).toBe(-32601);
    }
  });

  it('an unknown tool is -32602, bad arguments our INVALID_ARGUMENT result', async () => {
    const unknown = await post(modern('tools/call', { name: 'format_disk', arguments: {} }));
    expect(unknown.json.error?.code).toBe(-32602);
    const bad = await post(modern('tools/call', { name: 'read_buffer', arguments: { start_line: 0 } }));
    const content = bad.json.result?.content as { text: string }[];
    expect(bad.json.result?.isError).toBe(true);
    expect((JSON.parse(content[0]?.text ?? '') as { error: { code: string } }).error.code).toBe('INVALID_ARGUMENT');
  });

  it('a missing client capabilities envelope is -32602; a batch is -32600', async () => {
    const request = modern('tools/list');
    const { 'io.modelcontextprotocol/clientCapabilities': _dropped, ...partial } = ENVELOPE;
    const noCaps = await post({ body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: partial } }, headers: request.headers });
    expect(noCaps.status).toBe(400);
    expect(noCaps.json.error?.code).toBe(-32602);
    const batch = await postMcp(token, [request.body, modern('tools/list', {}, 2).body], request.headers);
    expect(batch.status).toBe(400);
    expect(((await batch.json()) as RpcAnswer).error?.code).toBe(-32600);
  });

  it('the edge comes first: no token is 401 and a foreign Origin 403, whatever the era', async () => {
    const request = modern('tools/list');
    expect((await postMcp(null, request.body, request.headers)).status).toBe(401);
    expect((await postMcp(token, request.body, { ...request.headers, Origin: 'https://evil.example' })).status).toBe(403);
  });

  it('a browser may send the 2026-07-28 headers (CORS preflight)', async () => {
    const preflight = await relay('/mcp', {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:6274', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type, mcp-protocol-version, mcp-method, mcp-name' },
    });
    expect(preflight.status).toBe(204);
    const allowed = preflight.headers.get('Access-Control-Allow-Headers')?.toLowerCase() ?? '';
    for (const header of ['mcp-method', 'mcp-name', 'mcp-protocol-version', 'authorization']) expect(allowed).toContain(header);
  });
});

describe('the 2025 era on the same URL', () => {
  it('initialize negotiates a 2025 revision, and its results carry no 2026 fields', async () => {
    for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
      const res = await postMcp(token, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '0' } } });
      expect(res.headers.get('Content-Type')).toContain('application/json');
      expect(((await res.json()) as RpcAnswer).result?.protocolVersion).toBe(version);
    }
    const list = (await (await postMcp(token, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'MCP-Protocol-Version': '2025-11-25' })).json()) as RpcAnswer;
    expect(list.result?.tools).toHaveLength(TOOLS.length);
    for (const field of ['resultType', 'ttlMs', 'cacheScope', '_meta']) expect(list.result, field).not.toHaveProperty(field);
  });
});

describe('cancellation belongs to the request that was cancelled', () => {
  async function online(name: string): Promise<FakeAgent> {
    const { agent } = await FakeAgent.online((await deviceJwt(uniqueName(name))).token, [editor('nvim-1')]);
    agents.push(agent);
    return agent;
  }

  it('2026-07-28: the stream closing cancels that call, and only that one (same id, same token)', async () => {
    const agent = await online('modern-cancel');
    const request = modern('tools/call', { name: 'read_buffer', arguments: {} }, 9);
    const controller = new AbortController();
    const aborted = exports.default
      .fetch(new Request(`${BASE}/mcp`, { method: 'POST', headers: mcpHeaders(token, request.headers), body: JSON.stringify(request.body), signal: controller.signal }))
      .then(
        () => 'answered',
        () => 'aborted',
      );
    const first = await agent.next('call');
    const other = post(request);
    const second = await agent.next('call');

    controller.abort();
    expect(await agent.next('cancel')).toEqual({ type: 'cancel', id: first.id });
    expect(await aborted).toBe('aborted');
    agent.answer(second.id, { ok: true, data: { still: 'running' } });
    const answered = await other;
    // The agent's data does not fit read_buffer's output schema, which the server reports as
    // INTERNAL: what matters here is that this call was answered, not cancelled.
    const content = answered.json.result?.content as { text: string }[];
    expect((JSON.parse(content[0]?.text ?? '') as { error: { code: string } }).error.code).toBe('INTERNAL');
  });

  it('2026-07-28: a notifications/cancelled POST is accepted and cancels nothing (the stream is the cancellation)', async () => {
    const agent = await online('modern-notify');
    const pending = post(modern('tools/call', { name: 'get_state_brief', arguments: {} }, 'm-1'));
    const call = await agent.next('call');
    const notification = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'm-1', _meta: ENVELOPE } };
    expect((await postMcp(token, notification, { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'notifications/cancelled' })).status).toBe(202);
    agent.answer(call.id, { ok: false, error: { code: 'UNSUPPORTED', message: 'answered', hint: 'h' } });
    const content = (await pending).json.result?.content as { text: string }[];
    expect((JSON.parse(content[0]?.text ?? '') as { error: { message: string } }).error.message).toBe('answered');
  });

  it('2025: two calls of one token with the same id: a cancellation naming it cancels neither', async () => {
    const agent = await online('legacy-twins');
    const a = rawCall(token, 'get_state_brief', {}, 42);
    const callA = await agent.next('call');
    const b = rawCall(token, 'get_state_brief', {}, 42);
    const callB = await agent.next('call');
    // Before, this cancelled B (the latest call under the key) and left A running.
    expect((await postMcp(token, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 42 } })).status).toBe(202);
    agent.answer(callB.id, { ok: false, error: { code: 'UNSUPPORTED', message: 'B answered', hint: 'h' } });
    agent.answer(callA.id, { ok: false, error: { code: 'UNSUPPORTED', message: 'A answered', hint: 'h' } });
    const [outcomeA, outcomeB] = [outcomeOf(await a), outcomeOf(await b)];
    expect(!outcomeA.ok && outcomeA.error.message).toBe('A answered');
    expect(!outcomeB.ok && outcomeB.error.message).toBe('B answered');
  });

  it('2025: once only one call holds the id, the cancellation reaches it', async () => {
    const agent = await online('legacy-alone');
    const a = rawCall(token, 'get_state_brief', {}, 43);
    const callA = await agent.next('call');
    const b = rawCall(token, 'get_state_brief', {}, 43);
    const callB = await agent.next('call');
    agent.answer(callB.id, { ok: false, error: { code: 'UNSUPPORTED', message: 'B answered', hint: 'h' } });
    await b;
    expect((await postMcp(token, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 43 } })).status).toBe(202);
    expect(await agent.next('cancel')).toEqual({ type: 'cancel', id: callA.id });
    expect(errorCode(outcomeOf(await a))).toBe('CANCELLED');
  });
});
