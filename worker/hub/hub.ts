/**
 * The Hub Durable Object: one per account. The I/O shell around the registry, the call table and
 * the token store: it holds the agents' WebSockets with the hibernation API, routes each tool call
 * to the right socket and answers it when the agent does, and serves the token operations the
 * routes need over Durable Object RPC.
 *
 * Trust: the Hub enforces the token's scopes but does not speak for the agent, which applies its
 * own policy on top (DESIGN.md "Trust and authority"). Nothing is ever retried.
 */
import { DurableObject } from 'cloudflare:workers';
import {
  fail,
  HEARTBEAT_PING,
  HEARTBEAT_PONG,
  LIMITS,
  listEditors,
  parseAgentMessage,
  toolByName,
  WIRE_VERSION,
  type AgentMessage,
  type PermissionClass,
  type ToolOutcome,
  type ToolSpec,
} from '../../protocol/index.ts';
import { describe, type TokenKind } from '../auth/claims.ts';
import { TokenStore, type DeviceJwt, type MintedToken, type MintRequest, type Revocation, type TokenRecord, type Verification } from '../auth/tokens.ts';
import type { DeviceRecord, EnrolledDevice, Device } from '../auth/devices.ts';
import { PairingStore, type Cancelled, type Limited, type PairingView, type PendingView, type PollResult, type StartedPairing } from './pairings.ts';
import { OwnerGuesses, type OwnerSecretCheck } from './owner-guesses.ts';
import { SessionStore } from './sessions.ts';
import { bearerToken } from '../../protocol/http/bearer.ts';
import { callDeadlineMs, relayOrigin, type Vars } from '../config.ts';
import { jsonError, unauthorized } from '../http/responses.ts';
import { CallLog, type LoggedCall } from './call-log.ts';
import { CallTable, type CallSlot } from './calls.ts';
import { resolveDevice, type OnlineDevice } from '../../protocol/index.ts';
import { Registry } from './registry.ts';
import { checkScope, listEditorsOutcome, resolveEditor, type EditorInfo } from '../../protocol/index.ts';
import { attachmentOf, CLOSE, closeQuietly, send, type Attachment } from './sockets.ts';

/** A tool call as the Worker forwards it (arguments already validated against the catalog). */
export interface HubCall {
  tool: string;
  args: Record<string, unknown>;
  /** The `editor` argument, if given: a public id or a unique agent-local id. */
  editor?: string;
  /** The scopes of the client's token. */
  scopes: PermissionClass[];
  /** Who is calling, for the agent's prompts and audit log (e.g. `pat:laptop-claude`). */
  client: string;
  /** The client's handle for cancelling this call: token jti + JSON-RPC request id. */
  callKey: string;
}

const OFFLINE_HINT =
  'The link to the editor dropped during the call, so the call may or may not have been applied. ' +
  'Call list_editors, then read_buffer to see the current state before retrying an edit; never repeat an edit blindly.';

export class Hub extends DurableObject<Vars> {
  private readonly tokens: TokenStore;
  private readonly pairings: PairingStore;
  private readonly registry: Registry;
  private readonly calls = new CallTable();
  private readonly callLog: CallLog;
  private readonly ownerGuesses: OwnerGuesses;
  private readonly sessions: SessionStore;

  constructor(ctx: DurableObjectState, env: Vars) {
    super(ctx, env);
    this.tokens = new TokenStore(ctx.storage);
    this.pairings = new PairingStore(ctx.storage.sql, this.tokens.devices);
    this.registry = new Registry(ctx.storage);
    this.callLog = new CallLog(ctx.storage);
    this.ownerGuesses = new OwnerGuesses(ctx.storage.sql);
    this.sessions = new SessionStore(ctx.storage);
    // Heartbeats are answered by the runtime without waking the object (DESIGN.md "The relay").
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(HEARTBEAT_PING, HEARTBEAT_PONG));
    // A restart (deploy, eviction) closes every socket; waking from hibernation keeps them.
    // Either way, only connections with a live socket may keep editors.
    const live = new Set<string>();
    for (const ws of ctx.getWebSockets()) {
      const a = attachmentOf(ws);
      if (a) live.add(a.connId);
    }
    this.registry.keepOnly(live);
  }

  // ---- Agent sockets ------------------------------------------------------------------------

  /**
   * The agent's WebSocket upgrade, forwarded by the `/agent` route. Verifies the device token
   * before accepting; one live socket per device (a new one closes the older one).
   */
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('Upgrade')?.toLowerCase() !== 'websocket') {
      return jsonError(426, 'UPGRADE_REQUIRED', 'Connect with a WebSocket upgrade.', { Upgrade: 'websocket' });
    }
    const token = bearerToken(request.headers.get('Authorization'));
    if (token === null) return unauthorized(null);
    const verdict = await this.tokens.verify(token, 'device', relayOrigin(this.env, request.url), Date.now());
    if (!verdict.valid) return unauthorized(describe(verdict.reason));
    const device = verdict.device;
    if (device === null) return unauthorized(describe('unknown'));

    this.disconnect(device.id, () => true, CLOSE.replaced, 'replaced by a newer connection');
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server, [device.id]);
    const attachment: Attachment = {
      deviceId: device.id,
      deviceName: device.name,
      connId: crypto.randomUUID(),
      greeted: false,
    };
    server.serializeAttachment(attachment);
    this.tokens.devices.touch(device.id, Date.now());
    return new Response(null, { status: 101, webSocket: client });
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const a = attachmentOf(ws);
    if (!a) return closeQuietly(ws, CLOSE.protocolError, 'unknown connection');
    this.tokens.devices.touch(a.deviceId, Date.now());
    if (typeof message !== 'string') return this.badMessage(ws, a, 'binary frames are not part of the protocol');
    if (overWireLimit(message)) {
      return this.badMessage(ws, a, `message over ${LIMITS.maxWireMessageBytes} bytes`, message);
    }
    const parsed = parseAgentMessage(message);
    if (parsed.ok) return this.onAgentMessage(ws, a, parsed.message);
    // Another wire version may shape its hello differently: say VERSION_MISMATCH, not BAD_MESSAGE.
    const { type, v } = peek(message);
    if (type === 'hello' && typeof v === 'number' && v !== WIRE_VERSION) return this.versionMismatch(ws, v);
    this.badMessage(ws, a, parsed.error, message);
  }

  private versionMismatch(ws: WebSocket, v: number): void {
    send(ws, { type: 'error', code: 'VERSION_MISMATCH', message: `This relay speaks wire version ${WIRE_VERSION}, the agent ${v}.` });
    closeQuietly(ws, CLOSE.versionMismatch, 'wire version mismatch');
  }

  override async webSocketClose(ws: WebSocket, _code: number, _reason: string, _wasClean: boolean): Promise<void> {
    this.connectionEnded(ws);
    // Complete the closing handshake: compatibility dates before 2026-04-07 do not reply for us.
    closeQuietly(ws, CLOSE.normal, 'closed');
  }

  override async webSocketError(ws: WebSocket, _error: unknown): Promise<void> {
    this.connectionEnded(ws);
  }

  private onAgentMessage(ws: WebSocket, a: Attachment, message: AgentMessage): void {
    switch (message.type) {
      case 'hello': {
        if (message.v !== WIRE_VERSION) return this.versionMismatch(ws, message.v);
        this.registry.replace(a.deviceId, a.connId, message.editors);
        ws.serializeAttachment({ ...a, greeted: true } satisfies Attachment);
        send(ws, { type: 'welcome', v: WIRE_VERSION, device: { id: a.deviceId, name: a.deviceName } });
        return;
      }
      case 'editors':
        if (!a.greeted) {
          send(ws, { type: 'error', code: 'BAD_MESSAGE', message: 'Send hello first.' });
          return closeQuietly(ws, CLOSE.protocolError, 'hello expected');
        }
        this.registry.replace(a.deviceId, a.connId, message.editors);
        return;
      case 'result':
        // A late result (after TIMEOUT or CANCELLED), or one for another connection's call, is dropped.
        this.settleFrom(a, message.id, message.outcome);
        return;
      case 'error':
        // The agent reports a fault and closes; webSocketClose does the cleanup.
        return;
    }
  }

  /**
   * One message that does not parse. The socket stays open: one bad message (say, from a newer
   * agent) must not take down the device's other calls; each is refused with BAD_MESSAGE. If it
   * was recognisably the result of a pending call, that call is answered INTERNAL at once rather
   * than left to time out.
   */
  private badMessage(ws: WebSocket, a: Attachment, error: string, text?: string): void {
    send(ws, { type: 'error', code: 'BAD_MESSAGE', message: `Message refused: ${error}`.slice(0, 1000) });
    const { type, id } = text === undefined ? {} : peek(text);
    if (type === 'result' && typeof id === 'string') {
      this.settleFrom(a, id, fail('INTERNAL', 'The agent sent a malformed result for this call.'));
    }
  }

  private settleFrom(a: Attachment, id: string, outcome: ToolOutcome): void {
    if (this.calls.byId(id)?.connId === a.connId) this.calls.settle(id, outcome);
  }

  /**
   * A socket closed or failed: answer its calls EDITOR_OFFLINE and forget the editors it reported.
   * A replaced socket may close after its successor said hello; the successor's editors stay.
   */
  private connectionEnded(ws: WebSocket): void {
    const a = attachmentOf(ws);
    if (!a) return;
    this.calls.settleConnection(a.connId, fail('EDITOR_OFFLINE', `The connection to device "${a.deviceName}" closed during the call.`, { hint: OFFLINE_HINT }));
    this.registry.dropConnection(a.deviceId, a.connId);
  }

  /** Closes the device's sockets that `which` selects, answering their calls; returns how many. */
  private disconnect(deviceId: string, which: (a: Attachment) => boolean, code: number, reason: string, beforeClose?: (ws: WebSocket) => void): number {
    let closed = 0;
    for (const ws of this.ctx.getWebSockets(deviceId)) {
      const a = attachmentOf(ws);
      if (!a || !which(a)) continue;
      this.calls.settleConnection(a.connId, fail('EDITOR_OFFLINE', `The connection to device "${a.deviceName}" was closed (${reason}) during the call.`, { hint: OFFLINE_HINT }));
      this.registry.dropConnection(deviceId, a.connId);
      beforeClose?.(ws);
      closeQuietly(ws, code, reason);
      closed++;
    }
    return closed;
  }

  // ---- Tool calls (RPC from the Worker) -----------------------------------------------------

  /**
   * Runs one tool call: scope check, then list_editors from the registry, or routing to one editor
   * (by `editor`) or, for an agent-level tool, to one device's agent (by `device`), and waiting
   * for its result until the deadline (CALL_DEADLINE_MS). Never throws for a tool failure: every
   * failure is a ToolOutcome. Every call is recorded in the recent-calls log (never its arguments).
   */
  async callTool(call: HubCall): Promise<ToolOutcome> {
    const startedMs = Date.now();
    const editor = this.callTarget(call);
    const outcome = await this.routeCall(call);
    this.callLog.record({
      atMs: startedMs,
      tool: call.tool,
      editor,
      client: call.client,
      outcome: outcome.ok ? 'ok' : outcome.error.code,
      durationMs: Date.now() - startedMs,
    });
    return outcome;
  }

  /** The public id of the editor (or the device name) a call will reach, for the log; '' if none. */
  private callTarget(call: HubCall): string {
    const tool = toolByName(call.tool);
    if (!tool || tool.routing === 'hub') return '';
    if (tool.routing === 'agent') {
      const device = call.args.device;
      const route = resolveDevice(this.onlineDevices(), typeof device === 'string' ? device : undefined);
      return route.ok ? route.device.name : '';
    }
    const route = resolveEditor(this.registry.online(), call.editor);
    return route.ok ? route.editor.info.id : (call.editor ?? '');
  }

  /** What callTool does, before the log: scope check, then routing as described there. */
  private async routeCall(call: HubCall): Promise<ToolOutcome> {
    const tool = toolByName(call.tool);
    if (!tool) return fail('INVALID_ARGUMENT', `Unknown tool: ${call.tool}`);
    const denied = checkScope(tool, call.scopes);
    if (denied) return denied;
    if (tool.routing === 'hub') {
      if (tool.name === listEditors.name) return listEditorsOutcome(this.registry.online());
      return fail('UNSUPPORTED', `${tool.name} is not served by this relay.`);
    }
    if (tool.routing === 'agent') {
      const device = call.args.device;
      const route = resolveDevice(this.onlineDevices(), typeof device === 'string' ? device : undefined);
      if (!route.ok) return route.outcome;
      // The device is chosen here; the agent gets the other arguments and no editor.
      const { device: _device, ...args } = call.args;
      return this.sendCall(route.device.deviceId, '', tool, args, call, `Device "${route.device.name}" is not connected; nothing was sent.`);
    }
    const route = resolveEditor(this.registry.online(), call.editor);
    if (!route.ok) return route.outcome;
    const { editor: _editor, ...args } = call.args;
    return this.sendCall(route.editor.deviceId, route.editor.localId, tool, args, call, `Device of editor "${route.editor.info.id}" is not connected; nothing was sent.`);
  }

  /** Devices with a greeted, open agent socket, by name. */
  private onlineDevices(): OnlineDevice[] {
    const devices = new Map<string, OnlineDevice>();
    for (const ws of this.ctx.getWebSockets()) {
      const a = attachmentOf(ws);
      if (a?.greeted && ws.readyState === WebSocket.READY_STATE_OPEN) devices.set(a.deviceId, { deviceId: a.deviceId, name: a.deviceName });
    }
    return [...devices.values()].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  }

  /**
   * Sends a call to the agent of `deviceId`, for its editor `localId` ('' for the agent itself),
   * and waits for the result until the deadline. `offline` is the error when the device has no
   * live socket.
   */
  private async sendCall(deviceId: string, localId: string, tool: ToolSpec, args: Record<string, unknown>, call: HubCall, offline: string): Promise<ToolOutcome> {
    const ws = this.ctx.getWebSockets(deviceId).find((s) => attachmentOf(s)?.greeted && s.readyState === WebSocket.READY_STATE_OPEN);
    const a = ws && attachmentOf(ws);
    if (!ws || !a) {
      // The registry outlived the socket (it closed a moment ago): nothing was sent.
      this.registry.drop(deviceId);
      return fail('EDITOR_OFFLINE', offline);
    }

    const deadlineMs = callDeadlineMs(this.env);
    const { id, outcome } = this.calls.start({ connId: a.connId, deviceId, callKey: call.callKey }, deadlineMs, (slot) => this.sendCancel(slot), tool.timeoutHint);
    const sent = send(ws, {
      type: 'call',
      id,
      tool: tool.name,
      editor: localId,
      args,
      scopes: call.scopes,
      client: call.client,
      deadline_ms: deadlineMs,
    });
    if (!sent) this.calls.settle(id, fail('EDITOR_OFFLINE', 'The connection to the editor closed before the call could be sent; nothing was sent.'));
    return outcome;
  }

  /**
   * Cancels the call in flight under `callKey` (MCP `notifications/cancelled`, or the client going
   * away): tells the agent, answers the call CANCELLED. False when no such call is in flight.
   */
  async cancel(callKey: string): Promise<boolean> {
    const slot = this.calls.byCallKey(callKey);
    if (!slot) return false;
    this.sendCancel(slot);
    this.calls.settle(slot.id, fail('CANCELLED', 'The client cancelled the call.'));
    return true;
  }

  private sendCancel(slot: CallSlot): void {
    for (const ws of this.ctx.getWebSockets(slot.deviceId)) {
      if (attachmentOf(ws)?.connId === slot.connId) send(ws, { type: 'cancel', id: slot.id });
    }
  }

  // ---- Dashboard (RPC from the dashboard routes; read-only) ---------------------------------

  /** The newest `limit` tool calls (at most 200), newest first: no arguments, no results. */
  async recentCalls(limit: number): Promise<LoggedCall[]> {
    return this.callLog.recent(limit);
  }

  /** The editors online now, as list_editors shows them. */
  async editorsOnline(): Promise<EditorInfo[]> {
    return this.registry.online().map((e) => e.info);
  }

  // ---- Devices and pairing (RPC from the pair, agent, admin and dashboard routes) -----------

  /** Creates a device and its credential for the owner (admin API); the credential is shown once. */
  async enrollDevice(name: string, hostname: string | null): Promise<EnrolledDevice> {
    return this.tokens.devices.enroll(name, hostname, Date.now());
  }

  /** A short-lived device JWT for a device credential; null when the credential is unknown or revoked. */
  async deviceJwt(credential: string, origin: string): Promise<DeviceJwt | null> {
    const device = await this.tokens.devices.byCredential(credential);
    return device ? this.tokens.mintDeviceJwt(device, origin, Date.now()) : null;
  }

  /**
   * Every device, by name, with its hostname, last-seen time (heartbeats answered without waking
   * the Hub count too), whether its agent is online now, and whether it is revoked.
   */
  async listDevices(): Promise<DeviceRecord[]> {
    const seen = new Map<string, number>();
    for (const ws of this.ctx.getWebSockets()) {
      const a = attachmentOf(ws);
      if (!a?.greeted || ws.readyState !== WebSocket.READY_STATE_OPEN) continue;
      const heartbeat = this.ctx.getWebSocketAutoResponseTimestamp(ws)?.getTime() ?? 0;
      seen.set(a.deviceId, Math.max(seen.get(a.deviceId) ?? 0, heartbeat));
    }
    return this.tokens.devices.list().map((d) => {
      const heartbeat = seen.get(d.id);
      if (heartbeat === undefined) return d;
      const last = Math.max(d.last_seen_at === null ? 0 : Date.parse(d.last_seen_at), heartbeat);
      return { ...d, online: true, last_seen_at: last > 0 ? new Date(last).toISOString() : d.last_seen_at };
    });
  }

  /**
   * Revokes a device: its credential stops working, its JWTs are refused at the upgrade, and its
   * live sockets get a REVOKED fault and are closed at once. Null when no device has this id.
   */
  async revokeDevice(id: string): Promise<{ device: Device; revoked_at: string; disconnected: number } | null> {
    const revoked = this.tokens.devices.revoke(id, Date.now());
    if (!revoked) return null;
    const disconnected = this.disconnect(id, () => true, CLOSE.revoked, 'device revoked', (ws) =>
      send(ws, { type: 'error', code: 'REVOKED', message: 'This device was revoked; pair it again with `vimrelay pair`.' }),
    );
    return { ...revoked, disconnected };
  }

  /** RFC 8628 §3.1: a device asks to be paired, from `client` (a client-address bucket). */
  async startPairing(name: string, hostname: string, client: string): Promise<StartedPairing | Limited> {
    return this.pairings.start(name, hostname, client, Date.now());
  }

  /** RFC 8628 §3.4: the device polls with its device code. */
  async pollPairing(deviceCode: string): Promise<PollResult> {
    return this.pairings.poll(deviceCode, Date.now());
  }

  /** The pending (or cancelled) request with this user code, for the owner's page (RFC 8628 §3.3). */
  async findPairing(userCode: string): Promise<PairingView | Cancelled | Limited | undefined> {
    return this.pairings.find(userCode, Date.now());
  }

  /** The owner approves or denies the pending request with this user code. */
  async decidePairing(userCode: string, approve: boolean): Promise<PairingView | Cancelled | Limited | undefined> {
    return this.pairings.decide(userCode, approve, Date.now());
  }

  /** The requests waiting for the owner, for the list on /pair. */
  async pendingPairings(): Promise<PendingView[]> {
    return this.pairings.pending(Date.now());
  }

  /** The owner dismisses one waiting request (`id` from `pendingPairings`), or all of them (`id` null); how many. */
  async dismissPairings(id: string | null): Promise<number> {
    const nowMs = Date.now();
    if (id === null) return this.pairings.dismissAll(nowMs);
    return this.pairings.dismiss(id, nowMs) ? 1 : 0;
  }

  /** The device cancels its own request with its device code; false when the code is unknown, used or expired. */
  async cancelPairing(deviceCode: string): Promise<boolean> {
    return this.pairings.cancel(deviceCode, Date.now());
  }

  // ---- Tokens (RPC from the admin and auth routes) ------------------------------------------

  /** Mints and records an access token. */
  async mintToken(request: MintRequest): Promise<MintedToken> {
    return this.tokens.mint(request, Date.now());
  }

  /** Verifies a token of `kind` for the relay at `origin`: signature, claims, not revoked. */
  async verifyToken(token: string, kind: TokenKind, origin: string): Promise<Verification> {
    return this.tokens.verify(token, kind, origin, Date.now());
  }

  /** Every recorded token, without the token text. */
  async listTokens(): Promise<TokenRecord[]> {
    return this.tokens.list(Date.now());
  }

  /** Revokes an access token (devices are revoked with `revokeDevice`). Null when no token has this jti. */
  async revokeToken(jti: string): Promise<Revocation | null> {
    return this.tokens.revoke(jti, Date.now()) ?? null;
  }

  // ---- The owner's doors (RPC from the sign-in and admin routes) -----------------------------

  /** One owner-secret attempt from `client` (a client-address bucket), throttled (`owner-guesses.ts`). */
  async checkOwnerSecret(presented: string, secret: string, client: string): Promise<OwnerSecretCheck> {
    return this.ownerGuesses.check(presented, secret, client, Date.now());
  }

  /** Records a signed-in browser's session (the hash of its id) until `expiresAtMs` (`sessions.ts`). */
  async startSession(idHash: string, expiresAtMs: number): Promise<void> {
    this.sessions.start(idHash, expiresAtMs, Date.now());
  }

  /** Whether that session is still live (not signed out, not expired). */
  async sessionLive(idHash: string): Promise<boolean> {
    return this.sessions.live(idHash, Date.now());
  }

  /** Ends one session (sign-out). */
  async endSession(idHash: string): Promise<boolean> {
    return this.sessions.end(idHash);
  }

  /** Ends every session (sign out everywhere); how many were live. */
  async endAllSessions(): Promise<number> {
    return this.sessions.endAll();
  }
}

/** Whether `text` is over the wire limit in UTF-8 bytes; encodes it only when it could be. */
function overWireLimit(text: string): boolean {
  // One UTF-16 code unit is 1 to 3 bytes of UTF-8.
  if (text.length > LIMITS.maxWireMessageBytes) return true;
  if (text.length * 3 <= LIMITS.maxWireMessageBytes) return false;
  return new TextEncoder().encode(text).byteLength > LIMITS.maxWireMessageBytes;
}

/** A few fields of a message that failed validation, read loosely; empty when it is not a JSON object. */
function peek(text: string): { type?: unknown; v?: unknown; id?: unknown } {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const { type, v, id } = value as Record<string, unknown>;
      return { type, v, id };
    }
  } catch {
    // Not JSON at all.
  }
  return {};
}
