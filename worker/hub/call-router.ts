/**
 * Tool calls through the Hub (ARCHITECTURE.md "One call, end to end"): each validated call the
 * Worker forwards is routed by the one routing step shared with local mode (protocol/routing.ts
 * `routeCall`: scopes, then list_editors from the registry, or one editor, or one agent), sent on
 * that device's live socket, and waited for in the call table until its result, its deadline
 * (CALL_DEADLINE_MS), a cancellation or the socket's end. Every call is recorded in the
 * recent-calls log, never its arguments. Trust: the Hub enforces the token's scopes but does not
 * speak for the agent, which applies its own policy on top. Nothing is ever retried.
 */
import { fail, routeCall, toolByName, type PermissionClass, type ToolOutcome, type ToolSpec } from '../../protocol/index.ts';
import { callDeadlineMs, type Vars } from '../config.ts';
import type { AgentSockets } from './agent-sockets.ts';
import type { CallLog } from './call-log.ts';
import type { CallSlot, CallTable } from './calls.ts';
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
  /** This call's own handle, unique per call, for cancelling it when its client goes away. */
  callKey: string;
  /** Legacy era: token + JSON-RPC request id, what `notifications/cancelled` names (calls.ts `byRequestKey`). */
  requestKey?: string;
}

/** What the router needs from the Hub that holds it. */
export interface CallRouterDeps {
  readonly env: Vars;
  readonly sockets: AgentSockets;
  readonly registry: Registry;
  readonly calls: CallTable;
  readonly callLog: CallLog;
}

export class CallRouter {
  readonly #d: CallRouterDeps;

  constructor(deps: CallRouterDeps) {
    this.#d = deps;
  }

  /** Runs one tool call and logs it; never throws for a tool failure: every failure is a ToolOutcome. */
  async callTool(call: HubCall): Promise<ToolOutcome> {
    const startedMs = Date.now();
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
    const spec = toolByName(call.tool);
    if (!spec) return { outcome: fail('INVALID_ARGUMENT', `Unknown tool: ${call.tool}`), target: '' };
    const route = routeCall(spec, call.args, call.scopes, { editors: this.#d.registry.online(), devices: this.#d.sockets.onlineDevices() });
    if (route.kind === 'answer') return route;
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
    const { id, outcome } = calls.start({ connId: live.attachment.connId, deviceId, callKey: call.callKey, ...(call.requestKey === undefined ? {} : { requestKey: call.requestKey }) }, deadlineMs, (slot) => this.#sendCancel(slot), spec.timeoutHint);
    const sent = send(live.ws, {
      type: 'call',
      id,
      tool: spec.name,
      editor: localId,
      args,
      scopes: call.scopes,
      client: call.client,
      deadline_ms: deadlineMs,
    });
    if (!sent) calls.settle(id, fail('EDITOR_OFFLINE', 'The connection to the editor closed before the call could be sent; nothing was sent.'));
    return outcome;
  }

  #sendCancel(slot: CallSlot): void {
    const ws = this.#d.sockets.byConnection(slot.deviceId, slot.connId);
    if (ws) send(ws, { type: 'cancel', id: slot.id });
  }
}
