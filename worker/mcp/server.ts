/**
 * The relay's MCP server for one `/mcp` request: the shared server (protocol/mcp-server.ts) with a
 * `forward` that sends each call to the Hub, for one authenticated principal, listing and serving
 * what the endpoint's toolset and the principal's scopes allow; and the request keys
 * that a legacy-era `notifications/cancelled` names. Built fresh per request (the endpoint is
 * stateless), for the era the request belongs to.
 *
 * Cancellation belongs to the request that was cancelled (PROTOCOL.md "MCP endpoint"):
 *   - every call has its own call key, and the HTTP client going away cancels that call alone
 *     (the only cancellation of the 2026-07-28 era over HTTP: spec 2026-07-28
 *     "basic/transports/streamable-http", Cancellation);
 *   - a legacy-era call is also registered under its request key, token + JSON-RPC request id,
 *     which is all a `notifications/cancelled` can name on a stateless endpoint (spec 2025-11-25
 *     "basic/utilities/cancellation"); the Hub cancels under it only when exactly one call holds
 *     it, so that two clients of one token reusing an id never cancel each other's calls.
 */
import type { McpServerFactory, RequestId } from '@modelcontextprotocol/server';
import { cancelledRequestIds, mcpServerFactory, type McpCallRequest, type McpToolCall } from '../../protocol/mcp-server.ts';
import { carriedInput, fail, type AssistantChannel, type InputRequiredOutcome, type PermissionClass, type ToolOutcome, type Toolset, type WireRounds } from '../../protocol/index.ts';
import type { Rejection } from '../auth/claims.ts';
import type { Hub } from '../hub/hub.ts';

/** Who is calling, from a verified access token. */
export interface Principal {
  /** A personal access token (checked by the Hub on every call), or an OAuth grant's token. */
  readonly kind: 'pat' | 'oauth';
  /** The token's jti (or `grant:<id>`): scopes request keys, so that a client can cancel only its token's calls. */
  readonly jti: string;
  readonly scopes: PermissionClass[];
  /** The token's `client_id`, passed to the agent for prompts and the audit log. */
  readonly clientId: string;
  /**
   * What the owner's pages call the client (auth/client-names.ts): the name the owner consented
   * to, a token's `<name> (personal access token)`; passed to the agent beside the id. Null when
   * unknown (a Client ID Metadata Document client's grant from before names were kept).
   */
  readonly clientName: string | null;
}

/** What one request's server needs from its surroundings. */
export interface McpContext {
  readonly principal: Principal;
  /** The endpoint's toolset (`/mcp/<set>`; the whole catalog at `/mcp`). */
  readonly toolset: Toolset;
  readonly hub: DurableObjectStub<Hub>;
  /** Keeps work alive after the response (ExecutionContext.waitUntil). */
  readonly waitUntil: (promise: Promise<unknown>) => void;
  /** Aborts when the HTTP client goes away (compatibility flag `enable_request_signal`). */
  readonly signal: AbortSignal;
  /**
   * Told when the Hub refused the principal's personal access token (revoked, expired): the route
   * then answers the whole request 401 (routes/mcp.ts), never a tool result.
   */
  readonly tokenRefused: (reason: Rejection) => void;
}

/** What a legacy `notifications/cancelled` of this token names: token jti + JSON-RPC request id. */
export function requestKeyOf(jti: string, requestId: RequestId): string {
  return `${jti}:${JSON.stringify(requestId)}`;
}

/** The factory of this request's servers (one era each), forwarding every call to the Hub. */
export function relayMcpServerFactory(context: McpContext): McpServerFactory {
  return mcpServerFactory((call, request) => forward(context, call, request), {
    view: { toolset: context.toolset, scopes: context.principal.scopes },
    perGrant: true,
  });
}

/**
 * The request keys named by the `notifications/cancelled` messages among `messages`. Stateless
 * HTTP: the cancelled request runs in another Worker invocation, so the route forwards these to
 * the Hub before answering 202. Legacy era only.
 */
export function cancelledRequestKeys(messages: readonly unknown[], jti: string): string[] {
  return cancelledRequestIds(messages).map((id) => requestKeyOf(jti, id));
}

/** Sends a call to the Hub; the client going away (or the SDK aborting the request) cancels it there. */
async function forward(context: McpContext, call: McpToolCall, request: McpCallRequest): Promise<ToolOutcome | InputRequiredOutcome> {
  const signal = AbortSignal.any([context.signal, request.signal]);
  if (signal.aborted) return fail('CANCELLED', 'The client cancelled the call before it was sent.');
  const callKey = crypto.randomUUID();
  const onAbort = (): void => context.waitUntil(context.hub.cancel(callKey).catch(() => false));
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const { principal } = context;
    const answer = await context.hub.callTool({
      tool: call.spec.name,
      args: call.args,
      scopes: principal.scopes,
      client: principal.clientId,
      ...(principal.clientName === null ? {} : { clientName: principal.clientName }),
      callKey,
      ...(request.era === 'legacy' ? { requestKey: requestKeyOf(principal.jti, request.requestId) } : {}),
      ...(principal.kind === 'pat' ? { pat: principal.jti } : {}),
      ...(request.ui ? { ui: true as const } : {}),
      ...(request.assistant?.kind === 'rounds' ? { rounds: wireRounds(request.assistant) } : {}),
    });
    if ('tokenRefused' in answer) {
      context.tokenRefused(answer.tokenRefused);
      return fail('PERMISSION_DENIED', 'The access token is no longer valid.');
    }
    // The agent's INPUT_REQUIRED is the client's to fulfil, never the model's to read.
    return request.assistant?.kind === 'rounds' ? carriedInput(answer) : answer;
  } catch {
    // The Hub restarted (deploy, eviction) while the call was in flight: its fate is unknown.
    return fail('EDITOR_OFFLINE', 'The relay lost the call (it restarted) before the editor answered.', {
      hint: 'The call may or may not have been applied. Call list_editors, then read_buffer before retrying an edit.',
    });
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** A rounds channel as the wire carries it to the agent (protocol/elicitation.ts WireRounds). */
function wireRounds(rounds: Extract<AssistantChannel, { kind: 'rounds' }>): WireRounds {
  return {
    ...(rounds.requestState === undefined ? {} : { request_state: rounds.requestState }),
    ...(rounds.inputResponses === undefined ? {} : { input_responses: { ...rounds.inputResponses } }),
  };
}
