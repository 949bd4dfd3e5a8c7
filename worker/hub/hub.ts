/**
 * The Hub Durable Object: one per account (ARCHITECTURE.md "The relay"). This class is its RPC
 * surface and wiring only; the parts live beside it, one job each:
 *   - agent-sockets.ts: the agents' WebSockets (hibernation API), their messages and closes;
 *   - call-router.ts: each tool call routed, sent and waited for (calls.ts holds those in flight);
 *   - decision-router.ts: each answer from the Pending page carried to its agent (decide-requests.ts
 *     holds those in flight; decisions.ts and used-forms.ts are tables);
 *   - registry.ts, lost-devices.ts, call-log.ts, pairings.ts, pairing-tickets.ts, rate-limits.ts, owner-guesses.ts,
 *     sessions.ts, used-refresh-tokens.ts and auth/tokens.ts: one SQLite table (or a few) each; registration-limits.ts counts in
 *     rate-limits.ts's.
 * Heartbeats are answered by the runtime without waking the object (`setWebSocketAutoResponse`);
 * the Hub reads their times when it needs to know whether an agent still lives
 * (agent-sockets.ts `dropSilent`).
 */
import { DurableObject } from 'cloudflare:workers';
import { HEARTBEAT_PING, HEARTBEAT_PONG, type DecideOutcome, type EditorInfo } from '../../protocol/index.ts';
import type { TokenKind } from '../auth/claims.ts';
import type { Device, DeviceRecord, EnrolledDevice } from '../auth/devices.ts';
import { TokenStore, type DeviceJwt, type MintedToken, type MintRequest, type Revocation, type TokenRecord, type Verification } from '../auth/tokens.ts';
import type { Vars } from '../config.ts';
import { AgentSockets } from './agent-sockets.ts';
import { CallLog, type LoggedCall } from './call-log.ts';
import { CallRouter, type HubAnswer, type HubCall } from './call-router.ts';
import { CallTable } from './calls.ts';
import { DecideRequests } from './decide-requests.ts';
import { DecisionRouter, type DecideRequest } from './decision-router.ts';
import { PublishedDecisions, type DeviceDecisions } from './decisions.ts';
import { LostDevices } from './lost-devices.ts';
import { OWNER_USER_BUCKET, OwnerGuesses, type OwnerSecretCheck } from './owner-guesses.ts';
import { PairingTickets, type IssuedTicket } from './pairing-tickets.ts';
import { PairingStore, type Cancelled, type Limited, type PairingView, type PendingView, type PollResult, type StartedPairing } from './pairings.ts';
import type { RateCheck } from './rate-limits.ts';
import { RECONNECTING_WINDOW_MS } from './reconnecting.ts';
import { RegistrationLimits } from './registration-limits.ts';
import { Registry } from './registry.ts';
import { SessionStore } from './sessions.ts';
import { UsedForms } from './used-forms.ts';
import { UsedRefreshTokens, type RefreshClaim } from './used-refresh-tokens.ts';
import { CLOSE, closeQuietly, send } from './sockets.ts';

export type { HubAnswer, HubCall } from './call-router.ts';
export type { DecideRequest } from './decision-router.ts';
export type { DeviceDecisions } from './decisions.ts';

export class Hub extends DurableObject<Vars> {
  private readonly tokens: TokenStore;
  private readonly pairings: PairingStore;
  private readonly pairingTickets: PairingTickets;
  private readonly registry: Registry;
  private readonly callLog: CallLog;
  private readonly sockets: AgentSockets;
  private readonly router: CallRouter;
  private readonly published: PublishedDecisions;
  private readonly decisions: DecisionRouter;
  private readonly ownerGuesses: OwnerGuesses;
  private readonly sessions: SessionStore;
  private readonly registrations: RegistrationLimits;
  private readonly usedRefreshTokens: UsedRefreshTokens;

  constructor(ctx: DurableObjectState, env: Vars) {
    super(ctx, env);
    this.tokens = new TokenStore(ctx.storage);
    this.pairings = new PairingStore(ctx.storage.sql, this.tokens.devices);
    this.pairingTickets = new PairingTickets(ctx.storage.sql);
    this.registry = new Registry(ctx.storage);
    this.callLog = new CallLog(ctx.storage);
    const calls = new CallTable();
    const lost = new LostDevices(ctx.storage.sql, RECONNECTING_WINDOW_MS);
    this.published = new PublishedDecisions(ctx.storage);
    const decides = new DecideRequests();
    this.sockets = new AgentSockets({ ctx, env, tokens: this.tokens, registry: this.registry, calls, lost, published: this.published, decides });
    this.router = new CallRouter({
      env,
      sockets: this.sockets,
      registry: this.registry,
      calls,
      callLog: this.callLog,
      tokenRefusal: (jti, nowMs) => this.tokens.accessRefusal(jti, nowMs),
    });
    this.decisions = new DecisionRouter({ sockets: this.sockets, devices: this.tokens.devices, published: this.published, requests: decides, usedForms: new UsedForms(ctx.storage) });
    this.ownerGuesses = new OwnerGuesses(ctx.storage.sql);
    this.sessions = new SessionStore(ctx.storage);
    this.registrations = new RegistrationLimits(ctx.storage.sql);
    this.usedRefreshTokens = new UsedRefreshTokens(ctx.storage);
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

  // ---- Pending decisions (RPC from the Pending page's routes; decision-router.ts) -------------

  /** What the agents online now hold pending for the page, by device. */
  async pendingDecisions(): Promise<DeviceDecisions[]> {
    const now = Date.now();
    this.sockets.dropSilent(now);
    return this.published.pending(now);
  }

  /** Carries one answer from the page to the agent that holds the decision; its word, or the relay's refusal. */
  async decide(request: DecideRequest): Promise<DecideOutcome> {
    return this.decisions.decide(request);
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

  /**
   * RFC 8628 §3.1: a device asks to be paired, from `client` (a client-address bucket), with the
   * owner's ticket or without (`pairing-tickets.ts`); a ticket that is not live is refused.
   */
  async startPairing(name: string, hostname: string, client: string, ticket: string | null = null): Promise<StartedPairing | Limited | { badTicket: true }> {
    const nowMs = Date.now();
    if (ticket === null) return this.pairings.start(name, hostname, client, nowMs);
    if (!(await this.pairingTickets.redeem(ticket, nowMs))) return { badTicket: true };
    return this.pairings.start(name, hostname, client, nowMs, true);
  }

  /** A ticket for the owner's own pairing, which no pairing limit refuses (`pairing-tickets.ts`). */
  async issuePairingTicket(): Promise<IssuedTicket> {
    return this.pairingTickets.issue(Date.now());
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

  /**
   * RFC 9700 §4.14.2: claims a refresh token (its SHA-256) of grant `grantKey` before the token
   * endpoint exchanges it; `replayed` when it was exchanged before (`used-refresh-tokens.ts`).
   */
  async claimRefreshToken(hash: string, grantKey: string): Promise<RefreshClaim> {
    return this.usedRefreshTokens.claim(hash, grantKey, Date.now());
  }

  /** Settles a fresh claim once the exchange answered; whether a replay burnt the grant meanwhile. */
  async settleRefreshToken(hash: string, grantKey: string, exchanged: boolean): Promise<{ burnt: boolean }> {
    return this.usedRefreshTokens.settle(hash, grantKey, exchanged);
  }

  // ---- The owner's doors (RPC from the sign-in and admin routes) -----------------------------

  /**
   * One owner-secret attempt from `client` (a client-address bucket), throttled (`owner-guesses.ts`);
   * `named`: it named OWNER_USER, which sets it apart from everyone's guesses.
   */
  async checkOwnerSecret(presented: string, secret: string, client: string, named = false): Promise<OwnerSecretCheck> {
    return this.ownerGuesses.check(presented, secret, named ? OWNER_USER_BUCKET : client, Date.now());
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
