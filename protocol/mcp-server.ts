/**
 * The MCP server both the relay (`/mcp` in the Worker) and the local agent (`vimrelay serve`)
 * run: tools/list from the catalog, tools/call validated against it and handed to a `forward`
 * function that the caller supplies (the Hub, or the agent's own editors). Runtime-neutral: the
 * SDK's low-level `Server` runs in workerd and Node alike; no transport, no I/O of its own.
 *
 * We use the low-level `Server`, not `McpServer`: the catalog in protocol/ is the source of truth
 * for names, schemas and annotations (McpServer would derive its own from zod shapes), and a
 * tool-argument failure must be our `{error: {code: INVALID_ARGUMENT, message, hint}}` result,
 * not McpServer's wording.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type RequestId,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import pkg from '../package.json' with { type: 'json' };
import { fail, type ToolOutcome } from './errors.ts';
import { callToolResult, listedTool, parseArgs, type ListedTool } from './result.ts';
import type { ToolSpec } from './tool.ts';
import { toolByName, TOOLS } from './tools/index.ts';

/** What the server tells clients at initialize (spec 2025-11-25 "Lifecycle": `instructions`). */
export const MCP_INSTRUCTIONS =
  'vimrelay reads and edits the live buffers of the user\'s Neovim and Vim, unsaved text included. ' +
  'Call list_editors first, then get_state_brief for the buffers of one editor. Read before you edit and pass the ' +
  'changedtick you read as expected_changedtick; edits stay unsaved until the user (or save_buffer) saves them.';

/** A tools/call whose tool exists and whose arguments passed the catalog's input schema. */
export interface McpToolCall {
  readonly spec: ToolSpec;
  /** The validated arguments, `editor` (a public id or a unique agent-local id) or `device` included when given. */
  readonly args: Record<string, unknown>;
}

/** The SDK's per-request context: `requestId`, and `signal`, aborted by `notifications/cancelled`. */
export type McpRequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Runs a validated call and resolves with its outcome; never rejects for a tool failure. */
export type ForwardCall = (call: McpToolCall, extra: McpRequestExtra) => Promise<ToolOutcome>;

/**
 * The advertised catalog. Converting zod to JSON Schema costs milliseconds, so it is done once per
 * isolate or process; it derives from constants only and holds no request or account state.
 */
let listed: ListedTool[] | undefined;
export const listedTools = (): ListedTool[] => (listed ??= TOOLS.map(listedTool));

/** A low-level MCP server with the catalog's tools, handing each valid call to `forward`. */
export function buildMcpServer(forward: ForwardCall): Server {
  const server = new Server(
    { name: 'vimrelay', version: pkg.version },
    {
      capabilities: { tools: {} },
      instructions: MCP_INSTRUCTIONS,
      // The SDK's default (ajv) compiles schemas with `new Function`, which workerd forbids; this
      // one runs on Node too, so both sides validate the same way.
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    },
  );

  // Served from the catalog alone: works with no editor online (hosted assistants list tools
  // when a connector is added).
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools() }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const spec = toolByName(request.params.name);
    // Spec 2025-11-25 "Tools / Error handling": an unknown tool is a protocol error.
    if (!spec) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const parsed = parseArgs(spec, request.params.arguments);
    if (!parsed.ok) return callToolResult(parsed.outcome);
    const outcome = await forward({ spec, args: parsed.args }, extra);
    return callToolResult(checkOutput(spec, outcome));
  });

  return server;
}

/**
 * The data must match the tool's outputSchema: clients validate `structuredContent` against it
 * (spec 2025-11-25 "Structured content") and would fail the whole request otherwise. A mismatch
 * becomes an INTERNAL tool error that names the tool; the data does not pass through.
 */
export function checkOutput(spec: ToolSpec, outcome: ToolOutcome): ToolOutcome {
  if (!outcome.ok || spec.output.safeParse(outcome.data).success) return outcome;
  return fail('INTERNAL', `The agent returned a ${spec.name} result that does not match its output schema.`, {
    hint: 'Retry once; if it persists, the agent and the relay may be on different versions: update the agent.',
  });
}

/**
 * The request ids named by the `notifications/cancelled` messages among `messages` (spec
 * 2025-11-25 "Cancellation"). A stateless HTTP endpoint gets the cancellation in another POST than
 * the request it cancels, beyond the reach of the SDK's own handler, so it acts on these itself.
 */
export function cancelledRequestIds(messages: readonly unknown[]): RequestId[] {
  const ids: RequestId[] = [];
  for (const message of messages) {
    const parsed = CancelledNotificationSchema.safeParse(message);
    if (parsed.success && parsed.data.params.requestId !== undefined) ids.push(parsed.data.params.requestId);
  }
  return ids;
}
