/**
 * The relay's MCP server for one `/mcp` request: the shared server (protocol/mcp-server.ts) with a
 * `forward` that sends each call to the Hub, for one authenticated principal; and the call keys
 * that `notifications/cancelled` names. Built fresh per request (the endpoint is stateless).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { buildMcpServer, cancelledRequestIds, type McpToolCall } from '../../protocol/mcp-server.ts';
import { fail, type PermissionClass, type ToolOutcome } from '../../protocol/index.ts';
import type { Hub } from '../hub/hub.ts';

/** Who is calling, from a verified access token. */
export interface Principal {
  /** The token's jti: scopes call keys, so that a client can cancel only its own calls. */
  readonly jti: string;
  readonly scopes: PermissionClass[];
  /** The token's `client_id`, passed to the agent for prompts and the audit log. */
  readonly clientId: string;
}

/** What one request's server needs from its surroundings. */
export interface McpContext {
  readonly principal: Principal;
  readonly hub: DurableObjectStub<Hub>;
  /** Keeps work alive after the response (ExecutionContext.waitUntil). */
  readonly waitUntil: (promise: Promise<unknown>) => void;
  /** Aborts when the HTTP client goes away (compatibility flag `enable_request_signal`). */
  readonly signal: AbortSignal;
}

/** The key under which the Hub tracks a call: token jti + JSON-RPC request id (string or number). */
export function callKeyOf(jti: string, requestId: RequestId): string {
  return `${jti}:${JSON.stringify(requestId)}`;
}

/** A fresh MCP server for one request, forwarding every call to the Hub. */
export function buildRelayMcpServer(context: McpContext): Server {
  return buildMcpServer((call, extra) => forward(context, call, callKeyOf(context.principal.jti, extra.requestId)));
}

/**
 * The call keys named by the `notifications/cancelled` messages among `messages` (MCP spec
 * 2025-11-25 "Cancellation"). Stateless HTTP: the cancelled request runs in another Worker
 * invocation, so the route forwards these to the Hub before answering 202.
 */
export function cancelledCallKeys(messages: readonly unknown[], jti: string): string[] {
  return cancelledRequestIds(messages).map((id) => callKeyOf(jti, id));
}

/** Sends a call to the Hub; the client going away cancels it there. */
async function forward(context: McpContext, call: McpToolCall, callKey: string): Promise<ToolOutcome> {
  const onAbort = (): void => context.waitUntil(context.hub.cancel(callKey).catch(() => false));
  context.signal.addEventListener('abort', onAbort, { once: true });
  try {
    return (await context.hub.callTool({
      tool: call.spec.name,
      args: call.args,
      scopes: context.principal.scopes,
      client: context.principal.clientId,
      callKey,
    })) as ToolOutcome;
  } catch {
    // The Hub restarted (deploy, eviction) while the call was in flight: its fate is unknown.
    return fail('EDITOR_OFFLINE', 'The relay lost the call (it restarted) before the editor answered.', {
      hint: 'The call may or may not have been applied. Call list_editors, then read_buffer before retrying an edit.',
    });
  } finally {
    context.signal.removeEventListener('abort', onAbort);
  }
}
