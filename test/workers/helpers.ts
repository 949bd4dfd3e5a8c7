/**
 * Fixtures for the Worker tests, which run inside workerd: requests to the real Worker
 * (`exports.default.fetch`), minting through the real admin route, a real MCP SDK client, and a
 * fake *agent* (never a fake editor or relay) speaking the wire protocol over a real WebSocket.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { runInDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { hubFor } from '../../worker/account.ts';
import type { Hub } from '../../worker/hub/hub.ts';
import type { McpEra } from '../../protocol/mcp-server.ts';
import { parseHubMessage, WIRE_VERSION, type HubMessage, type ToolOutcome, type WireEditor } from '../../protocol/index.ts';
import type { HubAnswer } from '../../worker/hub/hub.ts';

/** The origin the tests reach the relay at. */
export const BASE = 'https://relay.test';

/** A request to the Worker under test. */
export function relay(path: string, init?: RequestInit): Promise<Response> {
  return exports.default.fetch(new Request(`${BASE}${path}`, init));
}

/**
 * Forgets the registrations counted so far (hub/registration-limits.ts's `register` buckets), for
 * files that register more clients than a minute's limit allows, none of them about the limit.
 */
export async function forgetRegistrations(): Promise<void> {
  await runInDurableObject(hubFor(env), (_hub: Hub, state) => void state.storage.sql.exec("DELETE FROM rate_limits WHERE bucket = 'register' OR bucket LIKE 'register:%'"));
}

/**
 * Signs in as the owner (POST /signin with the owner secret, then `next`), as the sign-in form
 * does; the session cookie as a Cookie header value. Throws unless the relay answers 303.
 */
export async function ownerSession(next = '/dashboard'): Promise<string> {
  const res = await relay('/signin', { method: 'POST', body: new URLSearchParams({ secret: env.OWNER_SECRET ?? '', next }), redirect: 'manual' });
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  return (res.headers.get('Set-Cookie') ?? '').split(';')[0] ?? '';
}

/** A JSON request to the admin API with the owner secret, or `secret` (null: no Authorization). */
export function admin(method: string, path: string, body?: unknown, secret: string | null = env.OWNER_SECRET ?? null): Promise<Response> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (secret !== null) headers.Authorization = `Bearer ${secret}`;
  return relay(`/admin${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

export interface Minted {
  token: string;
  jti: string;
  kind: 'device' | 'access';
  name: string;
  scopes: string[];
  expires_at: string;
  device: { id: string; name: string } | null;
}

/** Mints an access token through `POST /admin/tokens`; fails the test unless it answers 201. */
export async function mint(body: { kind: 'access'; name: string; scopes?: string[]; ttl_seconds?: number }): Promise<Minted> {
  const res = await admin('POST', '/tokens', body);
  if (res.status !== 201) throw new Error(`mint answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Minted;
}

/** A device created through `POST /admin/devices`, with its credential (shown once). */
export interface EnrolledDevice {
  device: { id: string; name: string };
  credential: string;
}

/** Creates a device through `POST /admin/devices`; fails the test unless it answers 201. */
export async function enrollDevice(name: string, hostname?: string): Promise<EnrolledDevice> {
  const res = await admin('POST', '/devices', { name, ...(hostname === undefined ? {} : { hostname }) });
  if (res.status !== 201) throw new Error(`enroll answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as EnrolledDevice;
}

/** Trades a device credential for a device JWT at `POST /agent/token` (the raw response). */
export function agentToken(credential: string | null): Promise<Response> {
  return relay('/agent/token', { method: 'POST', headers: credential === null ? {} : { Authorization: `Bearer ${credential}` } });
}

/** A new device, its credential and a fresh device JWT for the `/agent` upgrade. */
export async function deviceJwt(name: string): Promise<EnrolledDevice & { token: string }> {
  const enrolled = await enrollDevice(name);
  const res = await agentToken(enrolled.credential);
  if (res.status !== 200) throw new Error(`/agent/token answered ${res.status}: ${await res.text()}`);
  const { token } = (await res.json()) as { token: string };
  return { ...enrolled, token };
}

let names = 0;
/** A name no other test in this file uses. */
export function uniqueName(prefix: string): string {
  names += 1;
  return `${prefix}${names}`;
}

/** Headers every MCP POST carries (Streamable HTTP requires both media types in Accept). */
export function mcpHeaders(token: string | null, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
    ...extra,
  };
}

/** POSTs one raw body to /mcp (or `path`, a toolset's endpoint). */
export function postMcp(token: string | null, body: unknown, extra: Record<string, string> = {}, path = '/mcp'): Promise<Response> {
  return relay(path, { method: 'POST', headers: mcpHeaders(token, extra), body: typeof body === 'string' ? body : JSON.stringify(body) });
}

interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: { content: { type: string; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
  error?: { code: number; message: string };
}

/** A raw tools/call (no initialize: the endpoint is stateless). */
export async function rawCall(token: string, name: string, args: Record<string, unknown>, id: string | number = 1): Promise<JsonRpcResponse> {
  const res = await postMcp(token, { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  if (res.status !== 200) throw new Error(`tools/call answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as JsonRpcResponse;
}

/** The tool outcome inside a tools/call response: `{ok, data}` or `{ok: false, error}`. */
export function outcomeOf(response: JsonRpcResponse): ToolOutcome {
  const result = response.result;
  if (!result) throw new Error(`expected a result, got ${JSON.stringify(response)}`);
  const text = result.content[0]?.text ?? '';
  const parsed = JSON.parse(text) as Record<string, unknown>;
  if (result.isError) return { ok: false, error: parsed.error as Extract<ToolOutcome, { ok: false }>['error'] };
  return { ok: true, data: parsed };
}

/** The error code of a failed outcome (fails the test on success, or on a refused token). */
export function errorCode(outcome: ToolOutcome | HubAnswer): string {
  if (outcome.ok) throw new Error(`expected a tool error, got ${JSON.stringify(outcome.data)}`);
  if ('tokenRefused' in outcome) throw new Error(`expected a tool error, got the token refused (${outcome.tokenRefused})`);
  return outcome.error.code;
}

/**
 * A real MCP SDK client (v2) connected to the Worker with `token`, in `era`: `modern` pins
 * 2026-07-28, `legacy` opens with `initialize`. Inside workerd the SDK picks its cfworker
 * validator by itself (ajv cannot compile here).
 */
export async function mcpClient(token: string, era: McpEra = 'modern', path = '/mcp'): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}${path}`), {
    fetch: (url, init) => exports.default.fetch(new Request(url, init)),
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const info = { name: 'vimrelay-workers-test', version: '0.0.0' };
  const client = new Client(info, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  await client.connect(transport);
  return client;
}

/** One editor as an agent reports it. */
export function editor(id: string, overrides: Partial<WireEditor> = {}): WireEditor {
  return { id, kind: 'nvim', version: '0.7.2', name: id, cwd: '/home/u/project', current_file: null, pid: 4242, ...overrides };
}

/** Opens `/agent` with a device token (or none); returns the raw upgrade response. */
export function upgrade(token: string | null, headers: Record<string, string> = {}): Promise<Response> {
  return relay('/agent', {
    headers: { Upgrade: 'websocket', ...(token === null ? {} : { Authorization: `Bearer ${token}` }), ...headers },
  });
}

/**
 * A fake agent over a real WebSocket: sends wire messages, queues what the Hub sends, and knows
 * when the Hub closed the socket.
 */
export class FakeAgent {
  private readonly queue: HubMessage[] = [];
  private readonly waiters: ((m: HubMessage) => void)[] = [];
  /** Resolves with the close code once the socket is closed (by either side). */
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(
    readonly ws: WebSocket,
    replyToClose: boolean,
  ) {
    this.closed = new Promise((resolve) =>
      ws.addEventListener('close', (e) => {
        // Answer the Hub's close frame as a real client (the `ws` package) does. Without a
        // reply the Hub's webSocketClose never runs for a close the Hub started.
        if (replyToClose) {
          try {
            ws.close(e.code, e.reason);
          } catch {
            // We started the close: nothing to answer.
          }
        }
        resolve({ code: e.code, reason: e.reason });
      }),
    );
    ws.addEventListener('message', (e) => {
      if (typeof e.data !== 'string') throw new Error('binary frame from the Hub');
      if (e.data === 'pong') return;
      const parsed = parseHubMessage(e.data);
      if (!parsed.ok) throw new Error(`Hub sent an invalid message: ${parsed.error}`);
      const waiter = this.waiters.shift();
      if (waiter) waiter(parsed.message);
      else this.queue.push(parsed.message);
    });
    ws.accept();
  }

  /**
   * Connects with `token` (and `headers`: a takeover proof, a client address); fails the test
   * unless the upgrade succeeds. `replyToClose: false` leaves a close started by the Hub
   * unanswered, so that a test can deliver it when it chooses.
   */
  static async connect(
    token: string,
    { replyToClose = true, headers = {}, hub }: { replyToClose?: boolean; headers?: Record<string, string>; hub?: DurableObjectStub<Hub> } = {},
  ): Promise<FakeAgent> {
    // `hub`: that Hub's own upgrade (another account's), which no route of this relay reaches.
    const res = hub
      ? await hub.fetch(new Request(`${BASE}/agent`, { headers: { Upgrade: 'websocket', Authorization: `Bearer ${token}`, ...headers } }))
      : await upgrade(token, headers);
    if (res.status !== 101 || !res.webSocket) throw new Error(`upgrade answered ${res.status}: ${await res.text()}`);
    return new FakeAgent(res.webSocket, replyToClose);
  }

  /** Connects and says hello with `editors`; returns once welcomed. */
  static async online(
    token: string,
    editors: WireEditor[],
    options: { replyToClose?: boolean; headers?: Record<string, string>; hub?: DurableObjectStub<Hub> } = {},
  ): Promise<{ agent: FakeAgent; welcome: Extract<HubMessage, { type: 'welcome' }> }> {
    const agent = await FakeAgent.connect(token, options);
    agent.hello(editors);
    const welcome = await agent.next('welcome');
    return { agent, welcome };
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  hello(editors: WireEditor[], v: number = WIRE_VERSION): void {
    this.send({ type: 'hello', v, agent: { version: '0.0.0', hostname: 'test-host', platform: 'linux' }, editors });
  }

  /** The next message from the Hub, which must be of `type`. */
  async next<T extends HubMessage['type']>(type: T): Promise<Extract<HubMessage, { type: T }>> {
    const message = this.queue.shift() ?? (await new Promise<HubMessage>((resolve) => this.waiters.push(resolve)));
    if (message.type !== type) throw new Error(`expected ${type} from the Hub, got ${JSON.stringify(message)}`);
    return message as Extract<HubMessage, { type: T }>;
  }

  /** Answers a call with `outcome`. */
  answer(id: string, outcome: ToolOutcome): void {
    this.send({ type: 'result', id, outcome });
  }

  /** Closes from the agent's side and waits until the Hub has handled it (it echoes the close). */
  async close(): Promise<void> {
    this.ws.close(1000, 'test done');
    await this.closed;
  }
}
