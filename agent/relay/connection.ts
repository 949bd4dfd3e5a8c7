/**
 * The agent's link to the relay: before each attempt gets a short-lived device JWT for the
 * device credential (`device-token.ts`), dials OUT to `<relay>/agent` over a WebSocket with that
 * JWT in the Authorization header, says hello with the current editors, keeps the Hub told of
 * every change, runs the calls it sends, and heartbeats. Expects to be dropped (every deploy
 * restarts the Hub) and reconnects with full-jitter backoff (1 s -> 30 s).
 *
 * A refused credential (401/403 at `/agent/token`), or a 401/403 at the upgrade for a JWT fetched
 * for that very attempt, means the device is unknown or revoked: retrying cannot help, so it stops
 * and says so. A reused JWT refused at the upgrade (it expired) is dropped and the link retries
 * with a fresh one.
 */
import { hostname, platform } from 'node:os';
import WebSocket from 'ws';
import {
  HEARTBEAT_PING,
  HEARTBEAT_PONG,
  LIMITS,
  parseHubMessage,
  WIRE_VERSION,
  type AgentMessage,
  type HubMessage,
} from '../../protocol/index.ts';
import type { EditorSource } from '../editors/editor.ts';
import type { CallGuard } from '../policy/enforce.ts';
import type { Logger } from '../log.ts';
import { fullJitterDelay } from './backoff.ts';
import { CredentialRefused, DeviceTokens, type DeviceJwt } from './device-token.ts';
import { Dispatcher } from '../calls/dispatcher.ts';

export const AGENT_VERSION = '0.1.0';

export type LinkState = 'connecting' | 'connected' | 'waiting' | 'rejected' | 'stopped';

export interface RelayLinkOptions {
  relayUrl: string;
  /** The device credential (`vrd_...`); never logged. */
  deviceCredential: string;
  editors: EditorSource;
  /** The user's policy and the audit log, applied to every call. */
  guard: CallGuard;
  logger: Logger;
  /** Called on every state change, e.g. to write the status file. */
  onState?: (state: LinkState, detail: { device?: string; reason?: string }) => void;
  heartbeatMs?: number;
  reconnectBaseMs?: number;
  reconnectCapMs?: number;
}

export class RelayLink {
  readonly #opts: RelayLinkOptions;
  readonly #dispatcher: Dispatcher;
  readonly #tokens: DeviceTokens;
  #ws: WebSocket | undefined;
  #attempt = 0;
  #state: LinkState = 'stopped';
  #retryTimer: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #lastHeard = 0;
  #unsubscribe: (() => void) | undefined;
  #stopped = false;
  #rejected: ((reason: string) => void) | undefined;

  constructor(opts: RelayLinkOptions) {
    this.#opts = opts;
    this.#dispatcher = new Dispatcher(opts.editors, opts.guard);
    this.#tokens = new DeviceTokens({ relayUrl: opts.relayUrl, credential: opts.deviceCredential });
  }

  get state(): LinkState {
    return this.#state;
  }

  /** Starts connecting; resolves when the link is stopped or the relay rejects the credential. */
  run(): Promise<{ rejected: boolean; reason?: string }> {
    this.#unsubscribe = this.#opts.editors.onChange(() => this.#sendEditors());
    return new Promise((resolve) => {
      this.#rejected = (reason) => resolve({ rejected: true, reason });
      this.#stopResolve = () => resolve({ rejected: false });
      this.#connect();
    });
  }

  #stopResolve: (() => void) | undefined;

  /** Closes the link for good. */
  stop(): void {
    this.#stopped = true;
    this.#unsubscribe?.();
    clearTimeout(this.#retryTimer);
    clearInterval(this.#heartbeat);
    this.#dispatcher.cancelAll();
    this.#ws?.close(1000, 'agent stopping');
    this.#setState('stopped');
    this.#stopResolve?.();
  }

  #setState(state: LinkState, detail: { device?: string; reason?: string } = {}): void {
    this.#state = state;
    this.#opts.onState?.(state, detail);
  }

  #connect(): void {
    if (this.#stopped) return;
    this.#setState('connecting');
    this.#tokens.get().then(
      (jwt) => this.#open(jwt),
      (err: unknown) => {
        if (this.#stopped) return;
        if (err instanceof CredentialRefused) this.#reject(err.message);
        else this.#scheduleReconnect(`no device token: ${err instanceof Error ? err.message : String(err)}`);
      },
    );
  }

  #open(jwt: DeviceJwt): void {
    if (this.#stopped) return;
    const url = new URL(this.#opts.relayUrl.replace(/\/+$/, '') + '/agent');
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(url, {
      headers: { Authorization: `Bearer ${jwt.token}` },
      maxPayload: LIMITS.maxWireMessageBytes,
      handshakeTimeout: 15_000,
    });
    this.#ws = ws;

    ws.on('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      if ((status === 401 || status === 403) && jwt.fresh) {
        this.#reject(`the relay refused this device's credential (HTTP ${status})`);
      } else if (status === 401 || status === 403) {
        // A JWT kept from an earlier attempt may have expired: the next attempt fetches a new one.
        this.#tokens.invalidate();
        this.#opts.logger.info('relay refused a reused device token; fetching a new one', { status });
      } else {
        this.#opts.logger.warn('relay refused the connection', { status });
      }
      ws.terminate();
    });
    ws.on('open', () => {
      this.#lastHeard = Date.now();
      this.#send({
        type: 'hello',
        v: WIRE_VERSION,
        agent: { version: AGENT_VERSION, hostname: hostname(), platform: platform() },
        editors: this.#opts.editors.list().map((e) => e.info()),
      });
      this.#startHeartbeat(ws);
    });
    ws.on('message', (data, isBinary) => {
      this.#lastHeard = Date.now();
      if (isBinary) return;
      const text = data.toString();
      if (text === HEARTBEAT_PONG) return;
      const parsed = parseHubMessage(text);
      if (!parsed.ok) {
        this.#opts.logger.warn('ignoring a bad message from the relay', { error: parsed.error });
        return;
      }
      this.#onMessage(parsed.message);
    });
    ws.on('error', (err) => this.#opts.logger.debug('relay socket error', { error: err.message }));
    ws.on('close', (code, reason) => {
      clearInterval(this.#heartbeat);
      if (this.#ws === ws) this.#ws = undefined;
      if (this.#stopped || this.#state === 'rejected') return;
      this.#dispatcher.cancelAll();
      this.#scheduleReconnect(`closed (${code}${reason.length ? ` ${reason.toString()}` : ''})`);
    });
  }

  #onMessage(msg: HubMessage): void {
    switch (msg.type) {
      case 'welcome':
        this.#attempt = 0;
        this.#opts.logger.info('connected to relay', { device: msg.device.name });
        this.#setState('connected', { device: msg.device.name });
        // Editors that came or went between our hello and this welcome were not sent yet.
        this.#sendEditors();
        return;
      case 'call':
        void this.#dispatcher.handle(msg).then((outcome) => {
          if (outcome) this.#send({ type: 'result', id: msg.id, outcome });
        });
        return;
      case 'cancel':
        this.#dispatcher.cancel(msg.id);
        return;
      case 'error':
        if (msg.code === 'REVOKED') this.#reject(`the relay revoked this device: ${msg.message}`);
        else this.#opts.logger.error('relay reported a protocol error', { code: msg.code, message: msg.message });
        return;
    }
  }

  #send(msg: AgentMessage): void {
    const ws = this.#ws;
    if (ws?.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
  }

  #sendEditors(): void {
    if (this.#state !== 'connected') return;
    this.#send({ type: 'editors', editors: this.#opts.editors.list().map((e) => e.info()) });
  }

  #startHeartbeat(ws: WebSocket): void {
    const period = this.#opts.heartbeatMs ?? LIMITS.heartbeatMs;
    clearInterval(this.#heartbeat);
    this.#heartbeat = setInterval(() => {
      // Silence for two periods means the link is dead even if TCP has not noticed.
      if (Date.now() - this.#lastHeard > 2 * period) {
        this.#opts.logger.warn('relay stopped answering heartbeats; reconnecting');
        ws.terminate();
        return;
      }
      if (ws.readyState === WebSocket.OPEN) ws.send(HEARTBEAT_PING);
    }, period);
  }

  #scheduleReconnect(why: string): void {
    const delay = fullJitterDelay(
      this.#attempt++,
      this.#opts.reconnectBaseMs ?? LIMITS.reconnectBaseMs,
      this.#opts.reconnectCapMs ?? LIMITS.reconnectCapMs,
    );
    this.#opts.logger.info('relay link down; reconnecting', { why, in_ms: delay });
    this.#setState('waiting', { reason: why });
    this.#retryTimer = setTimeout(() => this.#connect(), delay);
  }

  #reject(reason: string): void {
    if (this.#state === 'rejected') return;
    this.#opts.logger.error(reason);
    this.#setState('rejected', { reason });
    this.#stopped = true;
    this.#unsubscribe?.();
    clearTimeout(this.#retryTimer);
    clearInterval(this.#heartbeat);
    this.#ws?.terminate();
    this.#rejected?.(reason);
  }
}
