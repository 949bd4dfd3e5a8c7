/**
 * Tool calls through the Hub (ARCHITECTURE.md "One call, end to end"): each validated call the
 * Worker forwards is routed by the one routing step shared with local mode (protocol/routing.ts
 * `routeCall`: scopes, then list_editors from the registry, or one editor, or one agent), sent on
 * that device's live socket, and waited for in the call table until its result, a cancellation,
 * the socket's end, or its deadline (CALL_DEADLINE_MS, the `deadline_ms` the agent is given) plus
 * LIMITS.hubGraceMs: the agent answers by its deadline (a prompt nobody answered is its denial),
 * and the grace lets that answer arrive before the Hub says TIMEOUT itself. Agents that stopped
 * answering heartbeats are dropped before each call and, while calls are in flight, every second
 * (AgentSockets.dropSilent), so a frozen agent's calls answer EDITOR_OFFLINE within
 * LIMITS.heartbeatTimeoutMs instead of at the deadline. When no editor is online because a device
 * is reconnecting, the answer says so (reconnecting.ts). Every call is recorded in the
 * recent-calls log, never its arguments. A call made with a personal access token names its jti,
 * and is refused before anything else when that token's record is revoked, expired or gone (the
 * Worker may have verified it a moment earlier: auth/verified-tokens.ts); the Worker answers that
 * with a 401, never as a tool result. Trust: the Hub enforces the token's scopes but does not speak
 * for the agent, which applies its own policy on top. Nothing is ever retried.
 */
import { anyToolByName, fail, LIMITS, routeCall, type PermissionClass, type ToolOutcome, type ToolSpec, type WireRounds } from '../../protocol/index.ts';
import type { Rejection } from '../auth/claims.ts';
import { callDeadlineMs, type Vars } from '../config.ts';
import type { AgentSockets } from './agent-sockets.ts';
import type { CallLog } from './call-log.ts';
import type { CallSlot, CallTable } from './calls.ts';
import { editorOfReconnectingDevice, noEditorWhileReconnecting, reconnecting } from './reconnecting.ts';
import type { Registry } from './registry.ts';
import { send } from './sockets.ts';

/** A tool call as the Worker forwards it (arguments already validated against the catalog). */
export interface HubCall {
  tool: string;
  /** The validated arguments, `editor` or `device` included when given. */
  args: Record<string, unknown>;
  /** The scopes of the client's token. */
  scopes: PermissionClass[];
  /** Who is calling, for the agent's prompts and audit log (e.g. `pat:laptop-claude`). */
  client: string;
  /** What the owner's pages call that client (e.g. `laptop-claude (personal access token)`), when known. */
  clientName?: string;
  /** This call's own handle, unique per call, for cancelling it when its client goes away. */
  callKey: string;
  /** Legacy era: token + JSON-RPC request id, what `notifications/cancelled` names (calls.ts `byRequestKey`). */
  requestKey?: string;
  /** The jti of the personal access token the call came with, checked against its record first. */
  pat?: string;
  /** The client declared MCP Apps: the agent may ask the user in the decision card (protocol/app/card.ts). */
  ui?: true;
  /** The client can be asked by elicitation rounds (wire `call.rounds`): the Hub carries it, and the agent's INPUT_REQUIRED back. */
  rounds?: WireRounds;
}

/** A call the Hub did not route: the personal access token it came with is no longer good. */
export interface TokenRefused {
  readonly ok: false;
  readonly tokenRefused: Rejection;
}

/** What a tool call through the Hub comes to: its outcome, or the refusal of its token. */
export type HubAnswer = ToolOutcome | TokenRefused;

/** What the router needs from the Hub that holds it. */
export interface CallRouterDeps {
  readonly env: Vars;
  readonly sockets: AgentSockets;
  readonly registry: Registry;
  readonly calls: CallTable;
  readonly callLog: CallLog;
  /** Why the access token `jti` is no longer good at `nowMs`, or null while it is. */
  readonly tokenRefusal: (jti: string, nowMs: number) => Rejection | null;
}

/** How often the Hub looks for silent agents while calls are in flight (ms). */
const SWEEP_MS = 1_000;

export class CallRouter {
  readonly #d: CallRouterDeps;
  #sweep: ReturnType<typeof setInterval> | undefined;

  constructor(deps: CallRouterDeps) {
    this.#d = deps;
  }

  /**
   * Runs one tool call and logs it; never throws for a tool failure: every failure is a
   * ToolOutcome. A call whose token is refused is neither run nor logged.
   */
  async callTool(call: HubCall): Promise<HubAnswer> {
    const startedMs = Date.now();
    const refused = call.pat === undefined ? null : this.#d.tokenRefusal(call.pat, startedMs);
    if (refused !== null) return { ok: false, tokenRefused: refused };
    const { outcome, target } = await this.#route(call);
    this.#d.callLog.record({
      atMs: startedMs,
      tool: call.tool,
      editor: target,
      client: call.client,
      outcome: outcome.ok ? 'ok' : outcome.error.code,
      durationMs: Date.now() - startedMs,
    });
    return outcome;
  }

  /**
   * Cancels the call in flight under `callKey` (MCP `notifications/cancelled`, or the client going
   * away): tells the agent, answers the call CANCELLED. False when no such call is in flight.
   */
  cancel(callKey: string): boolean {
    return this.#cancelSlot(this.#d.calls.byCallKey(callKey));
  }

  /**
   * Cancels the one call in flight under `requestKey` (a legacy-era `notifications/cancelled`);
   * false when there is none, or several that it cannot tell apart (calls.ts `byRequestKey`).
   */
  cancelRequest(requestKey: string): boolean {
    return this.#cancelSlot(this.#d.calls.byRequestKey(requestKey));
  }

  #cancelSlot(slot: CallSlot | undefined): boolean {
    if (!slot) return false;
    this.#sendCancel(slot);
    this.#d.calls.settle(slot.id, fail('CANCELLED', 'The client cancelled the call.'));
    return true;
  }

  async #route(call: HubCall): Promise<{ outcome: ToolOutcome; target: string }> {
    const spec = anyToolByName(call.tool);
    if (!spec) return { outcome: fail('INVALID_ARGUMENT', `Unknown tool: ${call.tool}`), target: '' };
    const now = Date.now();
    this.#d.sockets.dropSilent(now);
    const editors = await this.#d.sockets.editors();
    // Who is reconnecting matters only when the call would otherwise find no editor.
    const lost = editors.length === 0 || typeof call.args.editor === 'string' ? reconnecting(this.#d.sockets.offlineDevices(), now) : [];
    const noEditor = noEditorWhileReconnecting(lost, now);
    const route = routeCall(spec, call.args, call.scopes, { editors, devices: this.#d.sockets.onlineDevices(), ...(noEditor ? { noEditor } : {}) });
    if (route.kind === 'answer') {
      const requested = call.args.editor;
      const code = route.outcome.ok ? null : route.outcome.error.code;
      if ((code === 'EDITOR_NOT_FOUND' || code === 'NO_EDITOR') && typeof requested === 'string') {
        return { ...route, outcome: editorOfReconnectingDevice(requested, lost, now) ?? route.outcome };
      }
      return route;
    }
    return { outcome: await this.#send(route.deviceId, route.localId, spec, route.args, call, route.offline), target: route.target };
  }

  /**
   * Sends a call to the agent of `deviceId`, for its editor `localId` ('' for the agent itself),
   * and waits for the result until the deadline. `offline` is the error when the device has no
   * live socket.
   */
  async #send(deviceId: string, localId: string, spec: ToolSpec, args: Record<string, unknown>, call: HubCall, offline: string): Promise<ToolOutcome> {
    const live = this.#d.sockets.live(deviceId);
    if (!live) {
      // The registry outlived the socket (it closed a moment ago): nothing was sent.
      this.#d.registry.drop(deviceId);
      return fail('EDITOR_OFFLINE', offline);
    }
    const deadlineMs = callDeadlineMs(this.#d.env);
    const { calls } = this.#d;
    const { id, outcome } = calls.start(
      { connId: live.attachment.connId, deviceId, callKey: call.callKey, ...(call.requestKey === undefined ? {} : { requestKey: call.requestKey }) },
      deadlineMs + LIMITS.hubGraceMs,
      (slot) => this.#sendCancel(slot),
      spec.timeoutHint,
    );
    this.#watchSilence();
    const sent = send(live.ws, {
      type: 'call',
      id,
      tool: spec.name,
      editor: localId,
      args,
      scopes: call.scopes,
      client: call.client,
      ...(call.clientName === undefined ? {} : { client_name: call.clientName }),
      ...(call.ui ? { ui: true } : {}),
      deadline_ms: deadlineMs,
      ...(call.rounds === undefined ? {} : { rounds: call.rounds }),
    });
    if (!sent) calls.settle(id, fail('EDITOR_OFFLINE', 'The connection to the editor closed before the call could be sent; nothing was sent.'));
    return outcome;
  }

  /** While calls are in flight, drops silent agents every SWEEP_MS (their calls answer at once). */
  #watchSilence(): void {
    if (this.#sweep !== undefined) return;
    const sweep = setInterval(() => {
      this.#d.sockets.dropSilent(Date.now());
      if (this.#d.calls.size === 0) {
        clearInterval(sweep);
        this.#sweep = undefined;
      }
    }, SWEEP_MS);
    this.#sweep = sweep;
  }

  #sendCancel(slot: CallSlot): void {
    const ws = this.#d.sockets.byConnection(slot.deviceId, slot.connId);
    if (ws) send(ws, { type: 'cancel', id: slot.id });
  }
}
