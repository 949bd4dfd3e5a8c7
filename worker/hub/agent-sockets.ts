/**
 * The agents' WebSockets as the Hub holds them (hibernation API; PROTOCOL.md "Wire protocol"):
 * the upgrade, after the device JWT is verified (one live socket per device: a newer one closes
 * the older when it proves the takeover key takeover.ts asks for, and is refused with 409
 * otherwise, the live agent told), each agent message (hello, editors, results, faults), the close of a socket, the
 * disconnection of a device, and agents that went silent: heartbeats are answered by the runtime
 * without waking the Hub, so the Hub reads each socket's last auto-response time when it needs to
 * know (a call, a listing, and once a second while calls are in flight) and closes the sockets of
 * agents it has not heard from for LIMITS.heartbeatTimeoutMs (`dropSilent`); any message of the
 * agent's counts as hearing from it too. It keeps the editor registry and the published decisions
 * (decisions.ts) in step with the sockets, and a live connection's editors whatever happened to
 * their rows (`editors`: a connection with fewer rows than its last list held is asked for the
 * list again, with a second `welcome`), records the devices it lost (lost-devices.ts, what
 * NO_EDITOR names as reconnecting), and hands results, the agents' word on the page's answers
 * (`decided`) and dropped connections to the call table and decide-requests.ts; it never routes a
 * call (call-router.ts does) nor an answer (decision-router.ts does).
 */
import {
  fail,
  LIMITS,
  parseAgentMessage,
  TAKEOVER_HEADER,
  TAKEOVER_PROOF,
  WIRE_VERSION,
  type AgentMessage,
  type OnlineDevice,
  type OnlineEditor,
  type ToolOutcome,
} from '../../protocol/index.ts';
import { bearerToken } from '../../protocol/http/bearer.ts';
import { describe } from '../auth/claims.ts';
import type { Device } from '../auth/devices.ts';
import { hashSecret, sameHash } from '../auth/pairing.ts';
import type { TokenStore } from '../auth/tokens.ts';
import { relayOrigin, type Vars } from '../config.ts';
import { shownAddress } from '../http/client-address.ts';
import { jsonError, unauthorized } from '../http/responses.ts';
import type { CallTable } from './calls.ts';
import type { DecideRequests } from './decide-requests.ts';
import type { PublishedDecisions } from './decisions.ts';
import type { LostDevices } from './lost-devices.ts';
import type { LostDevice } from './reconnecting.ts';
import type { Registry } from './registry.ts';
import { attachmentOf, CLOSE, closeQuietly, send, type Attachment } from './sockets.ts';
import { decideTakeover, replacedReason } from './takeover.ts';

/** The hint of every EDITOR_OFFLINE a dropped link causes. */
export const OFFLINE_HINT =
  'The link to the editor dropped during the call, so the call may or may not have been applied. ' +
  'Call list_editors, then read_buffer to see the current state before retrying an edit; never repeat an edit blindly.';

/** What the sockets need from the Hub that holds them. */
export interface AgentSocketsDeps {
  readonly ctx: DurableObjectState;
  readonly env: Vars;
  readonly tokens: TokenStore;
  readonly registry: Registry;
  readonly calls: CallTable;
  readonly lost: LostDevices;
  /** The pending decisions agents published (decisions.ts), and answers from the page in flight to them. */
  readonly published: PublishedDecisions;
  readonly decides: DecideRequests;
}

/**
 * How often a live connection's messages update its device's `last_seen_at` (ms): a SQLite write
 * per message would cost every call; a socket's end always updates it.
 */
const SEEN_EVERY_MS = 30_000;

/**
 * How long a listing or a call waits for a connection asked for its editors again to answer
 * (ms); an agent that does not (one older than the request, or stalled) is not asked again for
 * LIMITS.heartbeatTimeoutMs, and calls go on with what the registry has.
 */
const RESYNC_WAIT_MS = 1_000;

/** How often, at most, a live agent is told of refused connections as its device (ms); each is recorded. */
const REFUSED_NOTICE_EVERY_MS = 60_000;

export class AgentSockets {
  readonly #d: AgentSocketsDeps;
  /** When each connection last updated `last_seen_at` (lost on hibernation: it then updates again). */
  readonly #seenAt = new Map<string, number>();
  /**
   * When each connection's agent last sent a message: a sign of life beside its heartbeats (lost on
   * hibernation, which comes only after the messages stop; the heartbeats' times are kept).
   */
  readonly #heardAt = new Map<string, number>();
  /** The connections asked for their editors again (`editors`), with when, until they answer. */
  readonly #resyncs = new Map<string, { sentAt: number; answered: Promise<void>; answer(): void }>();

  constructor(deps: AgentSocketsDeps) {
    this.#d = deps;
    // A restart (deploy, eviction) closes every socket; waking from hibernation keeps them.
    // Either way, only connections with a live socket may keep editors. The devices that lost
    // theirs were online until now: they count as seen now, and are reconnecting.
    const live = new Set<string>();
    for (const ws of deps.ctx.getWebSockets()) {
      const a = attachmentOf(ws);
      if (a) live.add(a.connId);
    }
    const now = Date.now();
    for (const deviceId of deps.registry.keepOnly(live)) {
      deps.tokens.devices.touch(deviceId, now);
      deps.lost.lost(deviceId, now);
    }
    deps.published.keepOnly(live);
  }

  /**
   * The agent's WebSocket upgrade, forwarded by the `/agent` route. Verifies the device token
   * before accepting; one live socket per device: a newer one replaces it when takeover.ts lets
   * it, and is refused (409 DEVICE_IN_USE, the live agent told, the attempt recorded) otherwise.
   */
  async accept(request: Request): Promise<Response> {
    if (request.headers.get('Upgrade')?.toLowerCase() !== 'websocket') {
      return jsonError(426, 'UPGRADE_REQUIRED', 'Connect with a WebSocket upgrade.', { Upgrade: 'websocket' });
    }
    const token = bearerToken(request.headers.get('Authorization'));
    if (token === null) return unauthorized(null);
    const { tokens, ctx } = this.#d;
    const verdict = await tokens.verify(token, 'device', relayOrigin(this.#d.env, request.url), Date.now());
    if (!verdict.valid) return unauthorized(describe(verdict.reason));
    const device = verdict.device;
    if (device === null) return unauthorized(describe('unknown'));
    const proof = request.headers.get(TAKEOVER_HEADER);
    if (proof !== null && !TAKEOVER_PROOF.test(proof)) {
      return jsonError(400, 'BAD_TAKEOVER_PROOF', `The ${TAKEOVER_HEADER} header holds no takeover proof (43 base64url characters).`);
    }
    const takeover = proof === null ? null : await hashSecret(proof);
    const nowMs = Date.now();
    const address = shownAddress(request);

    // An agent that went silent is no longer live: it holds its device against nobody.
    this.dropSilent(nowMs);
    const live = ctx.getWebSockets(device.id).filter((ws) => ws.readyState === WebSocket.READY_STATE_OPEN && attachmentOf(ws) !== null);
    const liveAttachments = live.map((ws) => attachmentOf(ws) as Attachment);
    const admission = decideTakeover(takeover, liveAttachments.map((a) => a.takeover), tokens.devices.firstTakeoverKey(device.id), sameHash);
    if (!admission.admit) return this.#refuse(device, live, address, nowMs);
    if (takeover !== null) tokens.devices.keepFirstTakeoverKey(device.id, takeover);
    const replaced = admission.how === 'free' ? undefined : liveAttachments[0];
    if (admission.how !== 'free') this.disconnect(device.id, CLOSE.replaced, replacedReason(admission.how, address));

    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    ctx.acceptWebSocket(server, [device.id]);
    const attachment: Attachment = {
      deviceId: device.id,
      deviceName: device.name,
      connId: crypto.randomUUID(),
      greeted: false,
      connectedAt: nowMs,
      takeover,
      address,
      ...(replaced && admission.how !== 'free' ? { tookOver: { address: replaced.address, since: replaced.connectedAt, how: admission.how } } : {}),
    };
    server.serializeAttachment(attachment);
    tokens.devices.touch(device.id, nowMs);
    return new Response(null, { status: 101, webSocket: client });
  }

  /**
   * Refuses a newcomer that could not take over (takeover.ts): records when and from where, tells
   * the live agent (at most every REFUSED_NOTICE_EVERY_MS), and answers 409 without an upgrade.
   */
  #refuse(device: Device, live: readonly WebSocket[], address: string, nowMs: number): Response {
    const before = this.#d.tokens.devices.recordRefused(device.id, nowMs, address);
    if (before === null || nowMs - before >= REFUSED_NOTICE_EVERY_MS) {
      for (const ws of live) send(ws, { type: 'takeover_refused', at: new Date(nowMs).toISOString(), address });
    }
    const seconds = Math.round(LIMITS.heartbeatTimeoutMs / 1000);
    return jsonError(
      409,
      'DEVICE_IN_USE',
      `Another agent is connected as device "${device.name}", and this connection did not prove its takeover key. ` +
        `Stop that agent first (a stopped or silent one lets go within ${seconds} s); if it is not yours, revoke the device and pair this machine again.`,
    );
  }

  /** One message from an agent socket. */
  onMessage(ws: WebSocket, message: string | ArrayBuffer): void {
    const a = attachmentOf(ws);
    if (!a) return closeQuietly(ws, CLOSE.protocolError, 'unknown connection');
    const now = Date.now();
    this.#heardAt.set(a.connId, now);
    this.#seen(a, now);
    if (typeof message !== 'string') return this.#badMessage(ws, a, 'binary frames are not part of the protocol');
    if (overWireLimit(message)) {
      return this.#badMessage(ws, a, `message over ${LIMITS.maxWireMessageBytes} bytes`, message);
    }
    const parsed = parseAgentMessage(message);
    if (parsed.ok) return this.#onAgentMessage(ws, a, parsed.message);
    // Another wire version may shape its hello differently: say VERSION_MISMATCH, not BAD_MESSAGE.
    const { type, v } = peek(message);
    if (type === 'hello' && typeof v === 'number' && v !== WIRE_VERSION) return this.#versionMismatch(ws, v);
    this.#badMessage(ws, a, parsed.error, message);
  }

  /** Records that the connection's device was heard from, at most every SEEN_EVERY_MS. */
  #seen(a: Attachment, nowMs: number): void {
    if (nowMs - (this.#seenAt.get(a.connId) ?? -Infinity) < SEEN_EVERY_MS) return;
    this.#seenAt.set(a.connId, nowMs);
    this.#d.tokens.devices.touch(a.deviceId, nowMs);
  }

  /**
   * A socket closed or failed: answer its calls EDITOR_OFFLINE and forget the editors it reported.
   * A replaced socket may close after its successor said hello; the successor's editors stay.
   */
  onEnded(ws: WebSocket): void {
    const a = attachmentOf(ws);
    if (!a) return;
    // The socket was live until now, unless the Hub itself closed it as silent (dropSilent).
    const now = Date.now();
    if (this.#silentSince(ws, a, now) === null) {
      this.#d.tokens.devices.touch(a.deviceId, now);
      // A socket replaced by a newer one that already said hello: the device is not lost.
      if (!this.live(a.deviceId)) this.#d.lost.lost(a.deviceId, now);
    }
    this.#forget(a.connId);
    this.#d.calls.settleConnection(a.connId, fail('EDITOR_OFFLINE', `The connection to device "${a.deviceName}" closed during the call.`, { hint: OFFLINE_HINT }));
    this.#dropConnection(a);
  }

  /** Forgets what connection `a` reported and published, and answers the page's answers in flight to it DEVICE_OFFLINE. */
  #dropConnection(a: Attachment): void {
    this.#d.registry.dropConnection(a.deviceId, a.connId);
    this.#d.published.dropConnection(a.deviceId, a.connId);
    this.#d.decides.settleConnection(a.connId);
  }

  /**
   * Closes every socket of the device, answering their calls EDITOR_OFFLINE; `beforeClose` may
   * send a last message. Returns how many were closed.
   */
  disconnect(deviceId: string, code: number, reason: string, beforeClose?: (ws: WebSocket) => void): number {
    let closed = 0;
    for (const ws of this.#d.ctx.getWebSockets(deviceId)) {
      const a = attachmentOf(ws);
      if (!a) continue;
      this.#d.calls.settleConnection(a.connId, fail('EDITOR_OFFLINE', `The connection to device "${a.deviceName}" was closed (${reason}) during the call.`, { hint: OFFLINE_HINT }));
      this.#dropConnection(a);
      beforeClose?.(ws);
      closeQuietly(ws, code, reason);
      closed++;
    }
    return closed;
  }

  /** Devices with a greeted, open agent socket, by name. */
  onlineDevices(): OnlineDevice[] {
    const devices = new Map<string, OnlineDevice>();
    for (const ws of this.#d.ctx.getWebSockets()) {
      const a = attachmentOf(ws);
      if (a?.greeted && ws.readyState === WebSocket.READY_STATE_OPEN) devices.set(a.deviceId, { deviceId: a.deviceId, name: a.deviceName });
    }
    return [...devices.values()].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  }

  /** The device's greeted, open socket and its attachment, if it has one. */
  live(deviceId: string): { ws: WebSocket; attachment: Attachment } | undefined {
    for (const ws of this.#d.ctx.getWebSockets(deviceId)) {
      const attachment = attachmentOf(ws);
      if (attachment?.greeted && ws.readyState === WebSocket.READY_STATE_OPEN) return { ws, attachment };
    }
    return undefined;
  }

  /** The socket of connection `connId` of the device, if it is still there. */
  byConnection(deviceId: string, connId: string): WebSocket | undefined {
    return this.#d.ctx.getWebSockets(deviceId).find((ws) => attachmentOf(ws)?.connId === connId);
  }

  /**
   * Closes the socket of every agent not heard from for LIMITS.heartbeatTimeoutMs (frozen,
   * asleep, or its network gone without TCP noticing), as `disconnect` does, with
   * CLOSE.heartbeatMissed; its device counts as last seen at its last heartbeat. The agent
   * reconnects once it runs again. Returns the names of the devices it dropped.
   */
  dropSilent(nowMs: number): string[] {
    const dropped: string[] = [];
    for (const ws of this.#d.ctx.getWebSockets()) {
      const a = attachmentOf(ws);
      if (!a || ws.readyState !== WebSocket.READY_STATE_OPEN) continue;
      const silent = this.#silentSince(ws, a, nowMs);
      if (silent === null) continue;
      const seconds = Math.round((nowMs - silent) / 1000);
      this.#d.calls.settleConnection(
        a.connId,
        fail('EDITOR_OFFLINE', `The agent of device "${a.deviceName}" stopped answering heartbeats ${seconds} s ago (frozen, asleep, or its network went away) during the call.`, { hint: OFFLINE_HINT }),
      );
      this.#dropConnection(a);
      this.#d.tokens.devices.touch(a.deviceId, silent);
      this.#d.lost.lost(a.deviceId, silent);
      this.#forget(a.connId);
      closeQuietly(ws, CLOSE.heartbeatMissed, 'no heartbeat');
      dropped.push(a.deviceName);
    }
    return dropped;
  }

  /** Devices this Hub lost the agent of (lost-devices.ts) that are not revoked and have no live socket now, with when. */
  offlineDevices(): LostDevice[] {
    const online = new Set(this.onlineDevices().map((d) => d.deviceId));
    const lost = this.#d.lost.all();
    return this.#d.tokens.devices
      .list()
      .filter((d) => !d.revoked && !online.has(d.id) && lost.has(d.id))
      .map((d) => ({ name: d.name, lastSeenMs: lost.get(d.id) ?? 0 }));
  }

  /**
   * The editors online through this Hub's live connections (Registry.online). A connection whose
   * rows are fewer than its agent's last list held (they were deleted under it: another relay on
   * the same storage, or anything else) is asked for its list again with a second `welcome`, which
   * every agent answers with `editors`; the listing waits for that answer, at most RESYNC_WAIT_MS.
   */
  async editors(): Promise<OnlineEditor[]> {
    const live = this.#greeted();
    const counts = this.#d.registry.counts();
    const asked: Promise<void>[] = [];
    for (const [connId, { ws, attachment }] of live) {
      if ((attachment.editors ?? 0) > (counts.get(connId) ?? 0)) {
        const answered = this.#resync(ws, attachment);
        if (answered) asked.push(answered);
      }
    }
    if (asked.length > 0) {
      let timer: ReturnType<typeof setTimeout> | null = null;
      await Promise.race([Promise.all(asked), new Promise<void>((resolve) => (timer = setTimeout(resolve, RESYNC_WAIT_MS)))]);
      if (timer !== null) clearTimeout(timer);
    }
    return this.#d.registry.online(new Set(this.#greeted().keys()));
  }

  /**
   * Asks the agent on `ws` for its editors again (a `welcome`, answered with `editors`), unless it
   * was asked less than LIMITS.heartbeatTimeoutMs ago; the answer to wait for, while it is due
   * within RESYNC_WAIT_MS of the asking, else null.
   */
  #resync(ws: WebSocket, a: Attachment): Promise<void> | null {
    const now = Date.now();
    let asked = this.#resyncs.get(a.connId);
    if (!asked || now - asked.sentAt > LIMITS.heartbeatTimeoutMs) {
      let answer = (): void => {};
      const answered = new Promise<void>((resolve) => (answer = resolve));
      asked = { sentAt: now, answered, answer };
      this.#resyncs.set(a.connId, asked);
      send(ws, { type: 'welcome', v: WIRE_VERSION, device: { id: a.deviceId, name: a.deviceName } });
    }
    return now - asked.sentAt < RESYNC_WAIT_MS ? asked.answered : null;
  }

  /** This Hub's greeted, open agent sockets by connection id. */
  #greeted(): Map<string, { ws: WebSocket; attachment: Attachment }> {
    const live = new Map<string, { ws: WebSocket; attachment: Attachment }>();
    for (const ws of this.#d.ctx.getWebSockets()) {
      const attachment = attachmentOf(ws);
      if (attachment?.greeted && ws.readyState === WebSocket.READY_STATE_OPEN) live.set(attachment.connId, { ws, attachment });
    }
    return live;
  }

  /** Forgets what is kept in memory of a connection that ended. */
  #forget(connId: string): void {
    this.#seenAt.delete(connId);
    this.#heardAt.delete(connId);
    this.#resyncs.get(connId)?.answer();
    this.#resyncs.delete(connId);
  }

  /** The agent on connection `connId` reported its editors: whoever waits for that may go on. */
  #reported(connId: string): void {
    this.#resyncs.get(connId)?.answer();
    this.#resyncs.delete(connId);
  }

  /** Devices online now, with the newest heartbeat time (ms) of each; heartbeats do not wake the Hub. */
  heartbeats(): Map<string, number> {
    const seen = new Map<string, number>();
    for (const ws of this.#d.ctx.getWebSockets()) {
      const a = attachmentOf(ws);
      if (!a?.greeted || ws.readyState !== WebSocket.READY_STATE_OPEN) continue;
      const heartbeat = this.#d.ctx.getWebSocketAutoResponseTimestamp(ws)?.getTime() ?? 0;
      seen.set(a.deviceId, Math.max(seen.get(a.deviceId) ?? 0, heartbeat));
    }
    return seen;
  }

  /**
   * When the agent on `ws` was last heard from (its last heartbeat, or the connection itself), if
   * that was over LIMITS.heartbeatTimeoutMs before `nowMs`; null while it is live.
   */
  #silentSince(ws: WebSocket, a: Attachment, nowMs: number): number | null {
    const heard = Math.max(a.connectedAt, this.#heardAt.get(a.connId) ?? 0, this.#d.ctx.getWebSocketAutoResponseTimestamp(ws)?.getTime() ?? 0);
    return nowMs - heard > LIMITS.heartbeatTimeoutMs ? heard : null;
  }

  #versionMismatch(ws: WebSocket, v: number): void {
    send(ws, { type: 'error', code: 'VERSION_MISMATCH', message: `This relay speaks wire version ${WIRE_VERSION}, the agent ${v}.` });
    closeQuietly(ws, CLOSE.versionMismatch, 'wire version mismatch');
  }

  #onAgentMessage(ws: WebSocket, a: Attachment, message: AgentMessage): void {
    const { registry } = this.#d;
    switch (message.type) {
      case 'hello': {
        if (message.v !== WIRE_VERSION) return this.#versionMismatch(ws, message.v);
        registry.replace(a.deviceId, a.connId, message.editors);
        const { tookOver, ...rest } = a;
        ws.serializeAttachment({ ...rest, greeted: true, editors: distinctIds(message.editors) } satisfies Attachment);
        this.#d.lost.found(a.deviceId);
        this.#reported(a.connId);
        const took = tookOver ? { took_over: { address: tookOver.address, since: new Date(tookOver.since).toISOString(), how: tookOver.how } } : {};
        send(ws, { type: 'welcome', v: WIRE_VERSION, device: { id: a.deviceId, name: a.deviceName }, ...took });
        return;
      }
      case 'editors':
      case 'decisions':
        if (!a.greeted) {
          send(ws, { type: 'error', code: 'BAD_MESSAGE', message: 'Send hello first.' });
          return closeQuietly(ws, CLOSE.protocolError, 'hello expected');
        }
        if (message.type === 'decisions') {
          this.#d.published.replace(a.deviceId, a.connId, message.decisions, message.settled);
          return;
        }
        registry.replace(a.deviceId, a.connId, message.editors);
        ws.serializeAttachment({ ...a, editors: distinctIds(message.editors) } satisfies Attachment);
        this.#reported(a.connId);
        return;
      case 'decided':
        // Only for an answer sent on this very connection (decide-requests.ts); anything else is dropped.
        this.#d.decides.settle(message.id, a.connId, message.result);
        return;
      case 'result':
        // A late result (after TIMEOUT or CANCELLED), or one for another connection's call, is dropped.
        this.#settleFrom(a, message.id, message.outcome);
        return;
      case 'error':
        // The agent reports a fault and closes; onEnded does the cleanup.
        return;
    }
  }

  /**
   * One message that does not parse. The socket stays open: one bad message (say, from a newer
   * agent) must not take down the device's other calls; each is refused with BAD_MESSAGE. If it
   * was recognisably the result of a pending call, that call is answered INTERNAL at once rather
   * than left to time out.
   */
  #badMessage(ws: WebSocket, a: Attachment, error: string, text?: string): void {
    send(ws, { type: 'error', code: 'BAD_MESSAGE', message: `Message refused: ${error}`.slice(0, 1000) });
    const { type, id } = text === undefined ? {} : peek(text);
    if (type === 'result' && typeof id === 'string') {
      this.#settleFrom(a, id, fail('INTERNAL', 'The agent sent a malformed result for this call.'));
    }
  }

  #settleFrom(a: Attachment, id: string, outcome: ToolOutcome): void {
    const { calls } = this.#d;
    if (calls.byId(id)?.connId === a.connId) calls.settle(id, outcome);
  }
}

/** How many editors a list holds: the registry keeps one row per id (the last entry of a repeated one). */
function distinctIds(editors: readonly { id: string }[]): number {
  return new Set(editors.map((e) => e.id)).size;
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
