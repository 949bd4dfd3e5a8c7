/**
 * The agent's link to the relay: before each attempt gets a short-lived device JWT for the
 * device credential (`device-token.ts`), dials OUT to `<relay>/agent` over a WebSocket with that
 * JWT in the Authorization header, says hello with the current editors, keeps the Hub told of
 * every change, runs the calls it sends, and heartbeats. Expects to be dropped (every deploy
 * restarts the Hub) and reconnects (`backoff.ts`: full-jitter backoff, and health probes while the
 * relay is unreachable, so that it serves again within seconds of the relay coming back). Every
 * "link down" log line says why, down to the socket error (ECONNREFUSED, a DNS failure, ...).
 *
 * A refused credential (401/403 at `/agent/token`), or a 401/403 at the upgrade for a JWT fetched
 * for that very attempt, means the device is unknown or revoked: retrying cannot help, so it stops
 * and says so. A reused JWT refused at the upgrade (it expired) is dropped and the link retries
 * with a fresh one. Each upgrade proves this agent's takeover key (`takeover.ts`): a close with
 * 4000 means another agent connected as the same device and proved it may take over (this agent
 * restarted, or the device's first agent came back): this one stops and says so, with the
 * relay's word on who, rather than take turns with it forever. A 409 at the upgrade means another
 * agent is live as this device and this one could not prove its key: it stops and says so, since
 * retrying would only knock at the other's door. The live agent hears of every such refusal
 * (`takeover_refused`), and of a connection it took the device over from (the welcome's
 * `took_over`); both are logged, and those that may mean someone else holds the credential are
 * handed to `onWarning` (the status file).
 *
 * A frozen agent (stopped, or its machine asleep) measures its own stall (`stall.ts`): the relay's
 * silence is counted only while the agent ran, so its own freeze is not taken for a dead link;
 * a call that may have waited in the socket during a stall gets that much less of its deadline
 * (and none when the stall was long enough for the Hub to have answered it EDITOR_OFFLINE), so
 * that nothing starts in an editor after the client has its answer; and after a stall that long
 * the link reconnects at once, since the Hub has dropped it.
 *
 * While it runs, the link makes the relay's Pending page a surface of the agent's pending
 * decisions (`decisions.ts`): it publishes them to the Hub, and the book settles the answers the
 * Hub carries from the page.
 */
import { hostname, platform } from 'node:os';
import WebSocket from 'ws';
import {
  carryInput,
  fail,
  HEARTBEAT_PING,
  HEARTBEAT_PONG,
  LIMITS,
  parseHubMessage,
  roundsOf,
  TAKEOVER_HEADER,
  WIRE_VERSION,
  type AgentMessage,
  type HubMessage,
  type TakeoverHow,
  type ToolOutcome,
  type WireRounds,
} from '../../protocol/index.ts';
import type { AssistantAsk } from '../decisions/book.ts';
import type { EditorSource } from '../editors/editor.ts';
import type { CallGuard } from '../policy/enforce.ts';
import type { Logger } from '../log.ts';
import { waitToRetry, type Failure } from './backoff.ts';
import { CredentialRefused, DeviceTokens, RelayAnswered, type DeviceJwt } from './device-token.ts';
import { relayFailureText } from './fetch-failure.ts';
import { PagePublisher } from './decisions.ts';
import { StallWatch } from './stall.ts';
import { Dispatcher, type CallRequest } from '../calls/dispatcher.ts';
import { callBinding, ElicitRounds } from '../decisions/elicit-rounds.ts';
import { AGENT_VERSION } from '../version.ts';
import { jsonBytes } from '../utf8.ts';

/** The Hub's close code for a socket replaced by a newer connection of the same device. */
const CLOSE_REPLACED = 4000;

/** The Hub's status for an upgrade refused because another agent of the device is live and this one could not prove its key. */
const DEVICE_IN_USE = 409;

export type LinkState = 'connecting' | 'connected' | 'waiting' | 'rejected' | 'replaced' | 'refused' | 'stopped';

/**
 * How a link ended: stopped by its owner, the credential refused, replaced by another agent, or
 * refused because another agent holds the device.
 */
export interface LinkEnd {
  kind: 'stopped' | 'rejected' | 'replaced' | 'refused';
  reason?: string;
}

/** Something the user should know that may mean someone else holds the device's credential. */
export interface LinkWarning {
  /** When it happened (ISO 8601). */
  at: string;
  message: string;
}

export interface RelayLinkOptions {
  relayUrl: string;
  /** The device credential (`vrd_...`); never logged. */
  deviceCredential: string;
  /** This agent's takeover proof for this relay (`takeover.ts`); never logged. */
  takeoverProof: string;
  editors: EditorSource;
  /** The user's policy and the audit log, applied to every call. */
  guard: CallGuard;
  logger: Logger;
  /** Called on every state change, e.g. to write the status file. */
  onState?: (state: LinkState, detail: { device?: string; reason?: string }) => void;
  /** Called with each warning the module header lists, after it is logged. */
  onWarning?: (warning: LinkWarning) => void;
  heartbeatMs?: number;
  reconnectBaseMs?: number;
  reconnectCapMs?: number;
  healthProbeMs?: number;
}

export class RelayLink {
  readonly #opts: RelayLinkOptions;
  readonly #dispatcher: Dispatcher;
  /** Calls that wait between the elicitation rounds of their client (decisions/elicit-rounds.ts). */
  readonly #rounds: ElicitRounds;
  /** The rounds requests in flight by call id: a `cancel` stops the call they wait on. */
  readonly #roundCalls = new Map<string, AbortController>();
  readonly #tokens: DeviceTokens;
  readonly #stall = new StallWatch();
  #ws: WebSocket | undefined;
  #attempt = 0;
  #state: LinkState = 'stopped';
  #retry: AbortController | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  /** When the relay was last heard from, and the stalled time counted by then. */
  #heard = { at: 0, stalled: 0 };
  #device: string | undefined;
  /** When the current socket opened: nothing on it waited longer than since then. */
  #openedAt = 0;
  /** Why this agent is closing the current socket itself, for the log line that follows. */
  #closing: string | undefined;
  #unsubscribe: (() => void) | undefined;
  /** The relay's Pending page as a surface of the agent's decisions, while the link runs. */
  #page: PagePublisher | undefined;
  #stopped = false;
  /** The relay's id of this device, from its welcome ('' before one). */
  #deviceId = '';
  #end: ((end: LinkEnd) => void) | undefined;

  constructor(opts: RelayLinkOptions) {
    this.#opts = opts;
    // The decision card's secrets name this relay and this device (decisions/card.ts).
    const account = `relay ${new URL(opts.relayUrl).origin}`;
    this.#dispatcher = new Dispatcher(opts.editors, opts.guard, { cardHolder: () => ({ account, device: this.#deviceId }) });
    this.#rounds = new ElicitRounds(opts.guard.decisions);
    this.#tokens = new DeviceTokens({ relayUrl: opts.relayUrl, credential: opts.deviceCredential });
  }

  get state(): LinkState {
    return this.#state;
  }

  /** Starts connecting; resolves when the link ends (stopped, credential refused, or replaced). */
  run(): Promise<LinkEnd> {
    this.#unsubscribe = this.#opts.editors.onChange(() => this.#sendEditors());
    this.#page = new PagePublisher(this.#opts.guard.decisions, this.#opts.relayUrl, (message) => this.#send(message));
    this.#stall.start();
    return new Promise((resolve) => {
      this.#end = resolve;
      this.#connect();
    });
  }

  /** Closes the link for good. */
  stop(): void {
    this.#finish('stopped');
    this.#ws?.close(1000, 'agent stopping');
  }

  #setState(state: LinkState, detail: { device?: string; reason?: string } = {}): void {
    this.#state = state;
    this.#opts.onState?.(state, detail);
  }

  /** Ends the link: no more attempts, calls aborted, the state set, `run()` resolved. */
  #finish(kind: LinkEnd['kind'], reason?: string): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#unsubscribe?.();
    this.#page?.stop();
    this.#retry?.abort();
    clearInterval(this.#heartbeat);
    this.#stall.stop();
    this.#dispatcher.cancelAll();
    this.#setState(kind, reason === undefined ? {} : { reason });
    this.#end?.(reason === undefined ? { kind } : { kind, reason });
  }

  #connect(): void {
    if (this.#stopped) return;
    this.#setState('connecting');
    // The hello lists the editors: it waits for the first discovery pass (each of its probes is
    // bounded), so that a client asking as soon as the link is up sees every editor running.
    const discovered = this.#opts.editors.ready.catch(() => undefined);
    this.#tokens.get().then(
      (jwt) => discovered.then(() => this.#open(jwt)),
      (err: unknown) => {
        if (this.#stopped) return;
        if (err instanceof CredentialRefused) this.#reject(err.message);
        else if (err instanceof RelayAnswered) this.#scheduleReconnect(err.status >= 500 ? 'server' : 'refused', `no device token: ${err.message}`);
        else this.#scheduleReconnect('unreachable', `no device token: ${relayFailureText(err, this.#opts.relayUrl)}`);
      },
    );
  }

  #open(jwt: DeviceJwt): void {
    if (this.#stopped) return;
    const url = new URL(this.#opts.relayUrl.replace(/\/+$/, '') + '/agent');
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(url, {
      headers: { Authorization: `Bearer ${jwt.token}`, [TAKEOVER_HEADER]: this.#opts.takeoverProof },
      maxPayload: LIMITS.maxWireMessageBytes,
      handshakeTimeout: 15_000,
      // No permessage-deflate (RFC 7692): the messages are JSON the relay and the agent make, a
      // 100 KB result compressed and inflated on both ends of every call for bytes TLS carries anyway.
      perMessageDeflate: false,
    });
    this.#ws = ws;
    let opened = false;
    let status: number | undefined;
    let socketError: string | undefined;

    ws.on('unexpected-response', (_req, res) => {
      status = res.statusCode ?? 0;
      res.resume();
      if ((status === 401 || status === 403) && jwt.fresh) {
        this.#reject(`the relay refused this device's credential (HTTP ${status})`);
      } else if (status === DEVICE_IN_USE) {
        this.#refused();
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
      opened = true;
      this.#openedAt = Date.now();
      this.#heardNow();
      this.#send({
        type: 'hello',
        v: WIRE_VERSION,
        agent: { version: AGENT_VERSION, hostname: hostname(), platform: platform() },
        editors: this.#opts.editors.list().map((e) => e.info()),
      });
      this.#startHeartbeat(ws);
    });
    ws.on('message', (data, isBinary) => {
      this.#heardNow();
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
    ws.on('error', (err) => {
      socketError = relayFailureText(err, this.#opts.relayUrl);
      this.#opts.logger.debug('relay socket error', { error: socketError });
    });
    ws.on('close', (code, reason) => {
      clearInterval(this.#heartbeat);
      if (this.#ws === ws) this.#ws = undefined;
      this.#page?.disconnected();
      if (this.#stopped) return;
      this.#dispatcher.cancelAll();
      if (code === CLOSE_REPLACED) return this.#replaced(reason.toString());
      const closing = this.#closing;
      this.#closing = undefined;
      if (closing !== undefined) return this.#scheduleReconnect('unreachable', closing);
      if (status !== undefined) {
        return this.#scheduleReconnect(status >= 500 ? 'server' : 'refused', `the relay answered the upgrade with HTTP ${status}`);
      }
      if (!opened) return this.#scheduleReconnect('unreachable', socketError ?? `cannot reach the relay: closed (${code})`);
      const said = reason.length ? ` ${reason.toString()}` : '';
      this.#scheduleReconnect('unreachable', `closed (${code}${said})${socketError ? `: ${socketError}` : ''}`);
    });
  }

  #onMessage(msg: HubMessage): void {
    switch (msg.type) {
      case 'welcome':
        // A second welcome on the same socket: the Hub lost the editors this link reported (its
        // storage changed under it) and asks for them again.
        if (this.#state === 'connected') {
          this.#opts.logger.info('the relay asked for this machine\'s editors again');
          this.#sendEditors();
          return;
        }
        this.#attempt = 0;
        this.#device = msg.device.name;
        this.#deviceId = msg.device.id;
        this.#opts.logger.info('connected to relay', { device: msg.device.name });
        if (msg.took_over) this.#tookOver(msg.took_over);
        this.#setState('connected', { device: msg.device.name });
        // Editors that came or went between our hello and this welcome were not sent yet.
        this.#sendEditors();
        this.#page?.connected();
        return;
      case 'call': {
        // A call read right after a stall may have waited in the socket all along: it keeps only
        // what is left of its deadline, and none once the Hub may have answered it already.
        const stalled = this.#stall.stalledMs(this.#openedAt);
        const deadline_ms = stalled > this.#giveUpMs() ? 0 : msg.deadline_ms - stalled;
        if (stalled > 0) this.#opts.logger.warn('a call waited while this agent was not running', { stalled_ms: stalled, left_ms: Math.max(0, deadline_ms) });
        const request = { ...msg, deadline_ms };
        void (msg.rounds ? this.#inRounds(request, msg.rounds) : this.#dispatcher.handle(request)).then((outcome) => {
          if (outcome) this.#send({ type: 'result', id: msg.id, outcome });
        });
        return;
      }
      case 'cancel':
        this.#dispatcher.cancel(msg.id);
        this.#roundCalls.get(msg.id)?.abort();
        return;
      case 'decide':
        void this.#page?.decide(msg);
        return;
      case 'takeover_refused':
        this.#warn(
          msg.at,
          `a connection as device "${this.#device ?? '?'}" from ${msg.address} was refused: it had this device's credential but could not prove it is this agent. ` +
            'If it was not another agent of yours (one with another state directory), someone else holds the credential: revoke the device in the dashboard and pair this machine again.',
        );
        return;
      case 'error':
        if (msg.code === 'REVOKED') this.#reject(`the relay revoked this device: ${msg.message}`);
        else this.#opts.logger.error('relay reported a protocol error', { code: msg.code, message: msg.message });
        return;
    }
  }

  #send(msg: AgentMessage): void {
    const ws = this.#ws;
    // A text frame (RFC 6455 §5.6) of the message's JSON bytes, made without one string of the
    // whole message (utf8.ts); ws would count a string's bytes first.
    if (ws?.readyState === WebSocket.OPEN) ws.send(jsonBytes(msg), { binary: false });
  }

  #sendEditors(): void {
    if (this.#state !== 'connected') return;
    this.#send({ type: 'editors', editors: this.#opts.editors.list().map((e) => e.info()) });
  }

  #heardNow(): void {
    this.#heard = { at: Date.now(), stalled: this.#stall.totalMs() };
  }

  /** A stall longer than this, and the Hub may have dropped the link: a missed heartbeat or more. */
  #giveUpMs(): number {
    return LIMITS.heartbeatTimeoutMs - (this.#opts.heartbeatMs ?? LIMITS.heartbeatMs);
  }

  #startHeartbeat(ws: WebSocket): void {
    const period = this.#opts.heartbeatMs ?? LIMITS.heartbeatMs;
    clearInterval(this.#heartbeat);
    this.#heartbeat = setInterval(() => {
      const stalled = this.#stall.totalMs() - this.#heard.stalled;
      if (stalled > this.#giveUpMs()) {
        this.#opts.logger.warn('this agent was not running long enough for the relay to drop the link; reconnecting', { stalled_ms: stalled });
        this.#closing = `this agent was not running for ${Math.round(stalled / 1000)} s (stopped, or its machine asleep)`;
        ws.terminate();
        return;
      }
      // Silence for two periods while this agent ran means the link is dead even if TCP has not noticed.
      if (Date.now() - this.#heard.at - stalled > 2 * period) {
        this.#opts.logger.warn('relay stopped answering heartbeats; reconnecting');
        this.#closing = `no answer to heartbeats for ${Math.round((2 * period) / 1000)} s`;
        ws.terminate();
        return;
      }
      if (ws.readyState === WebSocket.OPEN) ws.send(HEARTBEAT_PING);
    }, period);
  }

  #scheduleReconnect(failure: Failure, why: string): void {
    const probeMs = this.#opts.healthProbeMs ?? LIMITS.healthProbeMs;
    const retry = new AbortController();
    this.#retry = retry;
    this.#setState('waiting', { reason: why });
    void waitToRetry({
      attempt: this.#attempt++,
      failure,
      baseMs: this.#opts.reconnectBaseMs ?? LIMITS.reconnectBaseMs,
      capMs: this.#opts.reconnectCapMs ?? LIMITS.reconnectCapMs,
      probeMs,
      probe: (signal) => this.#probeHealth(signal),
      signal: retry.signal,
      onScheduled: (delay) =>
        this.#opts.logger.info('relay link down; reconnecting', { why, in_ms: delay, ...(failure !== 'refused' && delay > probeMs ? { probing_every_ms: probeMs } : {}) }),
    }).then((cause) => {
      if (cause === 'aborted' || this.#stopped) return;
      if (cause === 'probe') this.#opts.logger.info('relay answers again; reconnecting now');
      this.#connect();
    });
  }

  /** Whether the relay's `/health` answers OK now (bounded; never rejects). */
  async #probeHealth(signal: AbortSignal): Promise<boolean> {
    try {
      const res = await fetch(`${this.#opts.relayUrl.replace(/\/+$/, '')}/health`, { signal: AbortSignal.any([signal, AbortSignal.timeout(2_000)]) });
      await res.body?.cancel();
      return res.ok;
    } catch {
      return false;
    }
  }

  /** The Hub closed this link for a newer connection of the device; `said`: its close reason (who, from where). */
  #replaced(said: string): void {
    const relay = said.length > 0 ? ` (the relay said: ${said})` : '';
    const reason = `another agent connected to the relay as device "${this.#device ?? '?'}" and replaced this one${relay}; one agent per device: stop the other, or let it serve`;
    this.#opts.logger.error(`stopping: ${reason}`);
    this.#finish('replaced', reason);
  }

  /** The Hub refused this link: another agent of the device is live and this one could not prove its key. */
  #refused(): void {
    if (this.#stopped) return;
    const reason =
      'another agent is connected to the relay as this device, and this one could not prove it is that agent (its takeover key): ' +
      'stop the other one first (`vimrelay status` where it runs), or, if it is not yours, revoke the device in the dashboard and pair this machine again';
    this.#opts.logger.error(`stopping: ${reason}`);
    this.#finish('refused', reason);
    this.#ws?.terminate();
  }

  /** Logs what the welcome's `took_over` says: a restart at info; a connection that had not proved this agent's key as a warning. */
  #tookOver(took: { address: string; since: string; how: TakeoverHow }): void {
    const device = this.#device ?? '?';
    if (took.how === 'same_key') {
      this.#opts.logger.info('took the device over from an earlier connection of this agent (a restart)', { device, from: took.address, since: took.since });
      return;
    }
    const who = took.how === 'keyless' ? 'proved no takeover key (an agent of an older version, or someone else)' : 'did not prove this agent\'s key';
    this.#warn(
      new Date().toISOString(),
      `took device "${device}" over from a connection from ${took.address}, live since ${took.since}, that ${who}. ` +
        'If it was not another agent of yours, someone else holds the credential: revoke the device in the dashboard and pair this machine again.',
    );
  }

  /**
   * A call whose client can be asked by rounds (wire `call.rounds`): its first round runs it and
   * may answer INPUT_REQUIRED for a decision it opens; a retry answers that decision and waits for
   * what the call comes to (decisions/elicit-rounds.ts). Bound to the client the relay names.
   */
  async #inRounds(request: CallRequest, rounds: WireRounds): Promise<ToolOutcome> {
    const stop = new AbortController();
    this.#roundCalls.set(request.id, stop);
    try {
      const binding = callBinding(request.tool, request.args, request.client);
      const channel = roundsOf(rounds);
      if (channel.requestState !== undefined) return carryInput(await this.#rounds.resume(binding, channel, stop.signal));
      const run = async (ask: AssistantAsk, signal: AbortSignal): Promise<ToolOutcome> => {
        const cancel = (): void => this.#dispatcher.cancel(request.id);
        signal.addEventListener('abort', cancel, { once: true });
        try {
          return (await this.#dispatcher.handle(request, { assistant: ask })) ?? fail('INTERNAL', 'The agent refused a call id it was already running.');
        } finally {
          signal.removeEventListener('abort', cancel);
        }
      };
      return carryInput(await this.#rounds.start(binding, run, stop.signal));
    } finally {
      this.#roundCalls.delete(request.id);
    }
  }

  #warn(at: string, message: string): void {
    this.#opts.logger.warn(message, { at });
    this.#opts.onWarning?.({ at, message });
  }

  #reject(reason: string): void {
    if (this.#stopped) return;
    this.#opts.logger.error(reason);
    this.#finish('rejected', reason);
    this.#ws?.terminate();
  }
}
