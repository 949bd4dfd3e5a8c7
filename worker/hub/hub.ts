/**
 * The Hub Durable Object: one per account (ARCHITECTURE.md "The relay"). This class is its RPC
 * surface and wiring only; the parts live beside it, one job each:
 *   - agent-sockets.ts: the agents' WebSockets (hibernation API), their messages and closes;
 *   - call-router.ts: each tool call routed, sent and waited for (calls.ts holds those in flight);
 *   - registry.ts, lost-devices.ts, call-log.ts, pairings.ts, rate-limits.ts, owner-guesses.ts,
 *     sessions.ts and auth/tokens.ts: one SQLite table (or a few) each; registration-limits.ts counts in
 *     rate-limits.ts's.
 * Heartbeats are answered by the runtime without waking the object (`setWebSocketAutoResponse`);
 * the Hub reads their times when it needs to know whether an agent still lives
 * (agent-sockets.ts `dropSilent`).
 */
import { DurableObject } from 'cloudflare:workers';
import { HEARTBEAT_PING, HEARTBEAT_PONG, type EditorInfo } from '../../protocol/index.ts';
import type { TokenKind } from '../auth/claims.ts';
import type { Device, DeviceRecord, EnrolledDevice } from '../auth/devices.ts';
import { TokenStore, type DeviceJwt, type MintedToken, type MintRequest, type Revocation, type TokenRecord, type Verification } from '../auth/tokens.ts';
import type { Vars } from '../config.ts';
import { AgentSockets } from './agent-sockets.ts';
import { CallLog, type LoggedCall } from './call-log.ts';
import { CallRouter, type HubAnswer, type HubCall } from './call-router.ts';
import { CallTable } from './calls.ts';
import { LostDevices } from './lost-devices.ts';
import { OwnerGuesses, type OwnerSecretCheck } from './owner-guesses.ts';
import { PairingStore, type Cancelled, type Limited, type PairingView, type PendingView, type PollResult, type StartedPairing } from './pairings.ts';
import type { RateCheck } from './rate-limits.ts';
import { RECONNECTING_WINDOW_MS } from './reconnecting.ts';
import { RegistrationLimits } from './registration-limits.ts';
import { Registry } from './registry.ts';
import { SessionStore } from './sessions.ts';
import { CLOSE, closeQuietly, send } from './sockets.ts';

export type { HubAnswer, HubCall } from './call-router.ts';

export class Hub extends DurableObject<Vars> {
  private readonly tokens: TokenStore;
  private readonly pairings: PairingStore;
  private readonly registry: Registry;
  private readonly callLog: CallLog;
  private readonly sockets: AgentSockets;
  private readonly router: CallRouter;
  private readonly ownerGuesses: OwnerGuesses;
  private readonly sessions: SessionStore;
  private readonly registrations: RegistrationLimits;

  constructor(ctx: DurableObjectState, env: Vars) {
    super(ctx, env);
    this.tokens = new TokenStore(ctx.storage);
    this.pairings = new PairingStore(ctx.storage.sql, this.tokens.devices);
    this.registry = new Registry(ctx.storage);
    this.callLog = new CallLog(ctx.storage);
    const calls = new CallTable();
    const lost = new LostDevices(ctx.storage.sql, RECONNECTING_WINDOW_MS);
    this.sockets = new AgentSockets({ ctx, env, tokens: this.tokens, registry: this.registry, calls, lost });
    this.router = new CallRouter({
      env,
      sockets: this.sockets,
      registry: this.registry,
      calls,
      callLog: this.callLog,
      tokenRefusal: (jti, nowMs) => this.tokens.accessRefusal(jti, nowMs),
    });
    this.ownerGuesses = new OwnerGuesses(ctx.storage.sql);
    this.sessions = new SessionStore(ctx.storage);
    this.registrations = new RegistrationLimits(ctx.storage.sql);
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(HEARTBEAT_PING, HEARTBEAT_PONG));
  }

  // ---- Agent sockets (agent-sockets.ts) -----------------------------------------------------

  /** The agent's WebSocket upgrade, forwarded by the `/agent` route. */
  override async fetch(request: Request): Promise<Response> {
    return this.sockets.accept(request);
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    this.sockets.onMessage(ws, message);
  }

  override async webSocketClose(ws: WebSocket, _code: number, _reason: string, _wasClean: boolean): Promise<void> {
    this.sockets.onEnded(ws);
    // Complete the closing handshake: compatibility dates before 2026-04-07 do not reply for us.
    closeQuietly(ws, CLOSE.normal, 'closed');
  }

  override async webSocketError(ws: WebSocket, _error: unknown): Promise<void> {
    this.sockets.onEnded(ws);
  }

  // ---- Tool calls (RPC from the Worker; call-router.ts) -------------------------------------

  /** Runs one tool call: routed, sent to its agent and waited for; every failure is a ToolOutcome. */
  async callTool(call: HubCall): Promise<HubAnswer> {
    return this.router.callTool(call);
  }

  /** Cancels the call in flight under `callKey`; false when there is none. */
  async cancel(callKey: string): Promise<boolean> {
    return this.router.cancel(callKey);
  }

  /** Cancels the one call in flight under a legacy request key; false when none or several. */
  async cancelRequest(requestKey: string): Promise<boolean> {
    return this.router.cancelRequest(requestKey);
  }

  // ---- Dashboard (RPC from the dashboard routes; read-only) ---------------------------------

  /** The newest `limit` tool calls (at most 200), newest first: no arguments, no results. */
  async recentCalls(limit: number): Promise<LoggedCall[]> {
    return this.callLog.recent(limit);
  }

  /** The editors online now, as list_editors shows them. */
  async editorsOnline(): Promise<EditorInfo[]> {
    this.sockets.dropSilent(Date.now());
    return (await this.sockets.editors()).map((e) => e.info);
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
    this.sockets.dropSilent(Date.now());
    const seen = this.sockets.heartbeats();
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
    const disconnected = this.sockets.disconnect(id, CLOSE.revoked, 'device revoked', (ws) =>
      send(ws, { type: 'error', code: 'REVOKED', message: 'This device was revoked; pair it again with `vimrelay pair`.' }),
    );
    return { ...revoked, disconnected };
  }

  /** RFC 7591 §3: counts one client registration from `client` (a client-address bucket), or refuses it over a rate limit. */
  async admitRegistration(client: string): Promise<RateCheck> {
    return this.registrations.admit(client, Date.now());
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
