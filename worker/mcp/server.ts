/**
 * The MCP server of one `/mcp` request: tools/list from the catalog, tools/call validated against
 * it and forwarded to the Hub; and the call keys that `notifications/cancelled` names. Built fresh
 * per request (the endpoint is stateless) for one authenticated principal.
 *
 * We use the SDK's low-level `Server`, not `McpServer`: the catalog in protocol/ is the source of
 * truth for names, schemas and annotations (McpServer would derive its own from zod shapes), and
 * a tool-argument failure must be our `{error: {code: INVALID_ARGUMENT, message, hint}}` result,
 * not McpServer's wording.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import { callToolResult, fail, listedTool, parseArgs, toolByName, TOOLS, type PermissionClass, type ToolOutcome, type ToolSpec } from '../../protocol/index.ts';
import type { Hub } from '../hub/hub.ts';
import pkg from '../../package.json' with { type: 'json' };

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

const INSTRUCTIONS =
  'vimrelay reads and edits the live buffers of the user\'s Neovim and Vim, unsaved text included. ' +
  'Call list_editors first, then get_state_brief for the buffers of one editor. Read before you edit and pass the ' +
  'changedtick you read as expected_changedtick; edits stay unsaved until the user (or save_buffer) saves them.';

/**
 * The advertised catalog. Converting zod to JSON Schema costs milliseconds, so it is done once per
 * isolate; it derives from constants only and holds no request or account state.
 */
let listed: ReturnType<typeof listedTool>[] | undefined;
const listedTools = (): ReturnType<typeof listedTool>[] => (listed ??= TOOLS.map(listedTool));

/** The key under which the Hub tracks a call: token jti + JSON-RPC request id (string or number). */
export function callKeyOf(jti: string, requestId: RequestId): string {
  return `${jti}:${JSON.stringify(requestId)}`;
}

/** A fresh low-level MCP server for one request, with the catalog's tools. */
export function buildMcpServer(context: McpContext): Server {
  const server = new Server(
    { name: 'vimrelay', version: pkg.version },
    {
      capabilities: { tools: {} },
      instructions: INSTRUCTIONS,
      // The SDK's default (ajv) compiles schemas with `new Function`, which workerd forbids.
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    },
  );

  // Served from the catalog alone: works with no agent online (hosted assistants list tools
  // when a connector is added).
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools() }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const spec = toolByName(request.params.name);
    // Spec 2025-11-25 "Tools / Error handling": an unknown tool is a protocol error.
    if (!spec) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const parsed = parseArgs(spec, request.params.arguments);
    if (!parsed.ok) return callToolResult(parsed.outcome);
    const editor = parsed.args.editor;
    const outcome = await forward(context, {
      tool: spec.name,
      args: parsed.args,
      ...(typeof editor === 'string' ? { editor } : {}),
      scopes: context.principal.scopes,
      client: context.principal.clientId,
      callKey: callKeyOf(context.principal.jti, extra.requestId),
    });
    return callToolResult(checkOutput(spec, outcome));
  });

  return server;
}

/**
 * The call keys named by the `notifications/cancelled` messages among `messages` (MCP spec
 * 2025-11-25 "Cancellation"). Stateless HTTP: the cancelled request runs in another Worker
 * invocation, beyond the reach of the SDK's own handler, so the route forwards these to the Hub
 * before answering 202.
 */
export function cancelledCallKeys(messages: readonly unknown[], jti: string): string[] {
  const keys: string[] = [];
  for (const message of messages) {
    const parsed = CancelledNotificationSchema.safeParse(message);
    if (parsed.success && parsed.data.params.requestId !== undefined) keys.push(callKeyOf(jti, parsed.data.params.requestId));
  }
  return keys;
}

/**
 * The agent's data must match the tool's outputSchema: clients validate `structuredContent`
 * against it (spec 2025-11-25 "Structured content") and would fail the whole request otherwise.
 * A mismatch becomes an INTERNAL tool error that names the tool; the data passes through as is.
 */
export function checkOutput(spec: ToolSpec, outcome: ToolOutcome): ToolOutcome {
  if (!outcome.ok || spec.output.safeParse(outcome.data).success) return outcome;
  return fail('INTERNAL', `The agent returned a ${spec.name} result that does not match its output schema.`, {
    hint: 'Retry once; if it persists, the agent and the relay may be on different versions: update the agent.',
  });
}

type Forwarded = Parameters<Hub['callTool']>[0];

/** Sends a call to the Hub; the client going away cancels it there. */
async function forward(context: McpContext, call: Forwarded): Promise<ToolOutcome> {
  const onAbort = (): void => context.waitUntil(context.hub.cancel(call.callKey).catch(() => false));
  context.signal.addEventListener('abort', onAbort, { once: true });
  try {
    return (await context.hub.callTool(call)) as ToolOutcome;
  } catch {
    // The Hub restarted (deploy, eviction) while the call was in flight: its fate is unknown.
    return fail('EDITOR_OFFLINE', 'The relay lost the call (it restarted) before the editor answered.', {
      hint: 'The call may or may not have been applied. Call list_editors, then read_buffer before retrying an edit.',
    });
  } finally {
    context.signal.removeEventListener('abort', onAbort);
  }
}
