/**
 * The MCP server both the relay (`/mcp` in the Worker) and the local agent (`vimrelay serve`)
 * run: tools/list from the catalog, tools/call validated against it and handed to a `forward`
 * function that the caller supplies (the Hub, or the agent's own editors). One definition serves
 * both protocol eras: an instance is built for one era (`legacy`: the 2025 revisions, opened by
 * `initialize`; `modern`: 2026-07-28, per-request `_meta`) by the serving entries
 * (protocol/http/mcp-handler.ts over HTTP, the SDK's `serveStdio` over stdio), which call
 * `mcpServerFactory`. Runtime-neutral: the SDK's low-level `Server` runs in workerd and Node alike;
 * no transport, no I/O of its own.
 *
 * We use the low-level `Server`, not `McpServer`: the catalog in protocol/ is the source of truth
 * for names, schemas and annotations (McpServer would derive its own from zod shapes), and a
 * tool-argument failure must be our `{error: {code: INVALID_ARGUMENT, message, hint}}` result,
 * not McpServer's wording.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  inputRequired,
  isSpecType,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type McpServerFactory,
  type RequestId,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
import pkg from '../package.json' with { type: 'json' };
import { DECISION_INPUT_KEY, elicitsForm, type AssistantChannel, type InputRequiredOutcome } from './elicitation.ts';
import { fail, type ToolOutcome } from './errors.ts';
import { LIMITS } from './limits.ts';
import { classRefusal, listedFor, servedTool, WHOLE_VIEW, type CatalogView } from './catalog-view.ts';
import { callToolResult, listedTool, parseArgs, type ListedTool } from './result.ts';
import type { ToolSpec } from './tool.ts';
import { APP_TOOLS, toolByName, TOOLS } from './tools/index.ts';
import { CARD_TOOL_META, cardResources, readCard, uiDeclared } from './app/card.ts';
import { MAX_CLIENT_NAME_CHARS } from './wire.ts';

/**
 * What the server tells clients: at `initialize` (spec 2025-11-25 "Lifecycle") and in
 * `server/discover` (spec 2026-07-28 "server/discover"). A summary of what the tools assume: each
 * tool's own descriptions say what it needs (a host may not show these instructions, and a tool
 * found through a client's tool search comes without them). Each line goes with the tools it
 * speaks of (`tools`: it is said when one of them is served), so that an endpoint serving a
 * toolset does not speak of tools it does not list.
 */
const INSTRUCTION_LINES: readonly { readonly text: string; readonly tools?: readonly string[] }[] = [
  {
    text:
      'vimrelay reads and edits the live buffers of the user\'s Neovim and Vim, unsaved text included. ' +
      'Call list_editors first to find the editors; every tool takes their id as `editor` (optional when one is online).',
  },
  { text: 'get_state_brief then lists the buffers, windows and cursor of one editor.', tools: ['get_state_brief'] },
  {
    text:
      '`buffer` is a buffer number or a file path (absolute, or relative to the editor\'s cwd). ' +
      'Lines are 1-based and inclusive; columns are 1-based and count characters, not bytes.',
  },
  {
    text:
      'Read before you edit, and pass the changedtick you read as `expected_changedtick`: if the buffer changed since, the edit is refused ' +
      '(STALE_CHANGEDTICK) and nothing changes. Each edit is one undo step and stays unsaved until the user (or save_buffer) saves it.',
    tools: ['find_and_replace', 'apply_diff', 'write_buffer', 'substitute', 'undo', 'redo', 'lsp_rename'],
  },
  {
    text:
      `Every list and text in a result is capped, and no result is over ${LIMITS.maxResultBytes / 1024} KB: a result that was cut says so ` +
      '(`truncated`, or a `*_truncated` flag), and the tool names the argument that fetches the rest.',
  },
  { text: 'A failure is a result with isError and `{error: {code, message, hint}}`; the hint says what to do next.' },
  {
    text:
      'An edit may be reviewed: the user sees it as a diff in their editor, to accept (perhaps changed) or reject. ' +
      '`review.decision` pending is no failure: nothing changed yet, and review_status gives the outcome.',
    tools: ['review_status'],
  },
  {
    text: 'The lsp_* tools ask the editor\'s own language servers about the text as it is, unsaved changes included.',
    tools: ['lsp_definition', 'lsp_references', 'lsp_hover', 'lsp_symbols', 'lsp_rename'],
  },
  {
    text:
      'Output schemas give nested results in TypeScript-like notation: a field with no type is an integer, `?` marks an optional field, ' +
      'and a comment says what a value means.',
  },
];

/** The instructions of an endpoint serving `tools` (names): the lines that speak of them, or of none. */
export function instructionsFor(tools: readonly string[]): string {
  return INSTRUCTION_LINES.filter((line) => line.tools === undefined || line.tools.some((t) => tools.includes(t)))
    .map((line, i) => (i === 0 ? line.text : `- ${line.text}`))
    .join('\n');
}

/** The instructions of the whole catalog. */
export const MCP_INSTRUCTIONS = instructionsFor(TOOLS.map((t) => t.name));

/**
 * How long a client may cache tools/list and server/discover (spec 2026-07-28
 * "server/utilities/caching": `ttlMs`, `cacheScope`). They change only when vimrelay is updated.
 * server/discover depends on the endpoint alone (its toolset), so it is `public`; tools/list is
 * `private` where it depends on the grant (the relay: "a different access token requires a
 * different cache", so that a client whose scopes widened after a step-up lists again with its new
 * token), `public` where it does not (`vimrelay serve`, whose one caller has every class).
 */
const CATALOG_TTL_MS = 300_000;

/** The protocol era an instance serves: `legacy` (2025 revisions, `initialize`) or `modern` (2026-07-28). */
export type McpEra = 'legacy' | 'modern';

/** A tools/call whose tool exists and whose arguments passed the catalog's input schema. */
export interface McpToolCall {
  readonly spec: ToolSpec;
  /** The validated arguments, `editor` (a public id or a unique agent-local id) or `device` included when given. */
  readonly args: Record<string, unknown>;
}

/** What a `forward` knows about the request that carries a call. */
export interface McpCallRequest {
  /** The JSON-RPC request id, which a legacy-era `notifications/cancelled` names. */
  readonly requestId: RequestId;
  /**
   * Aborted when the SDK learns the request was cancelled: over stdio a `notifications/cancelled`
   * (both eras), over HTTP in the modern era the response stream closing (spec 2026-07-28
   * "basic/patterns/cancellation", "Transport-Specific Cancellation").
   */
  readonly signal: ServerContext['mcpReq']['signal'];
  readonly era: McpEra;
  /**
   * The name the client gives itself, when it gives one: its `clientInfo` (`title`, else `name`),
   * sent at `initialize` (spec 2025-11-25 "Lifecycle") or with each request in 2026-07-28 (its
   * `_meta` envelope). Nothing vouches for it: local mode names its caller by it; the relay names
   * a caller by what the owner consented to.
   */
  readonly clientName?: string;
  /**
   * The client declared MCP Apps (protocol/app/card.ts `uiDeclared`): the decision card may be
   * shown with the call's result, so the user may be asked there too.
   */
  readonly ui: boolean;
  /**
   * How the user can be asked through the client (protocol/elicitation.ts), when the client
   * declared form elicitation and the request can carry it: a 2026-07-28 request (and its retry,
   * which carries a `requestState`), or a 2025-era connection whose transport carries server
   * requests (McpOptions.serverRequests). A `forward` that cannot use it ignores it.
   */
  readonly assistant?: AssistantChannel;
}

/**
 * Runs a validated call and resolves with its outcome, or, only for a request given a `rounds`
 * channel, with the input it needs first; never rejects for a tool failure.
 */
export type ForwardCall = (call: McpToolCall, request: McpCallRequest) => Promise<ToolOutcome | InputRequiredOutcome>;

/** How an entry serves besides its toolset. */
export interface McpOptions {
  /**
   * The transport carries server requests to a 2025-era client (stdio, one connection per
   * client): a decision may then be asked by `elicitation/create`. A stateless HTTP endpoint
   * answers each POST with JSON and has no stream to send one on.
   */
  readonly serverRequests?: boolean;
}

/**
 * The advertised catalog, in catalog order (spec 2026-07-28 "server/tools", Listing Tools: a
 * deterministic order), as the whole catalog with every class lists it. Converting zod to JSON
 * Schema costs milliseconds, so it is done once per isolate or process (catalog-view.ts memoises
 * each view's list); it derives from constants only and holds no request or account state.
 */
export const listedTools = (): ListedTool[] => listedFor(WHOLE_VIEW);

/** What one server instance serves, and to whom. */
export interface McpServing {
  /** The toolset of the endpoint and the classes of the request's grant. */
  readonly view: CatalogView;
  /** Whether the view depends on the caller's grant (the relay): tools/list is then cached privately. */
  readonly perGrant: boolean;
}

/** `vimrelay serve` without `--tools`: the whole catalog, every class, one caller. */
export const WHOLE_SERVING: McpServing = { view: WHOLE_VIEW, perGrant: false };

/** Where a tool the endpoint does not serve is: the toolset's words for the -32602 message. */
function unknownTool(name: string, serving: McpServing): string {
  const { toolset } = serving.view;
  if (toolset.label === '' || !toolByName(name)) return `Unknown tool: ${name}`;
  return `Unknown tool: ${name} (this endpoint serves the ${toolset.label} toolset: ${toolset.tools.map((t) => t.name).join(', ')})`;
}

/** A low-level MCP server for one era with the tools `serving` lists, handing each valid call to `forward`. */
export function buildMcpServer(forward: ForwardCall, era: McpEra, serving: McpServing = WHOLE_SERVING, options: McpOptions = {}): Server {
  const { view } = serving;
  const server = new Server(
    { name: 'vimrelay', version: pkg.version },
    {
      // No `listChanged`: a list changes only with the grant, which is a new token, and a
      // private cache is per token; or with an update of vimrelay (PROTOCOL.md "Toolsets").
      capabilities: { tools: {}, resources: {} },
      instructions: instructionsFor(view.toolset.tools.map((t) => t.name)),
      // The same validator in workerd (where it is the SDK's default) and Node (where ajv would be).
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      // Spec 2026-07-28 "server/utilities/caching": complete results of server/discover and
      // tools/list MUST carry ttlMs and cacheScope. The SDK writes them on modern results only.
      cacheHints: {
        'tools/list': { ttlMs: CATALOG_TTL_MS, cacheScope: serving.perGrant ? 'private' : 'public' },
        'server/discover': { ttlMs: CATALOG_TTL_MS, cacheScope: 'public' },
        // The decision card is the same for everyone, and changes only with vimrelay.
        'resources/list': { ttlMs: CATALOG_TTL_MS, cacheScope: 'public' },
      },
    },
  );

  // Served from the catalog and the grant alone: works with no editor online (hosted assistants
  // list tools when a connector is added).
  // What the client declared: each 2026-07-28 request carries it; in the 2025 era `initialize`
  // did (none on stateless HTTP, where that came in another request).
  const declaresUi = (envelope: Record<string, unknown> | undefined): boolean => uiDeclared(envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? server.getClientCapabilities());

  server.setRequestHandler('tools/list', (_request, ctx) => {
    const tools = listedFor(view);
    if (!declaresUi(ctx.mcpReq.envelope)) return { tools };
    return { tools: [...tools.map((t) => (askable(t.name) ? { ...t, _meta: CARD_TOOL_META } : t)), ...APP_TOOLS.map((t) => ({ ...listedTool(t), _meta: { ui: { visibility: ['app'] } } }))] };
  });

  // The decision card, to every client (it is inert without the app-only tool it calls).
  server.setRequestHandler('resources/list', () => cardResources());
  server.setRequestHandler('resources/read', (request) => {
    const read = readCard(request.params.uri);
    // SEP-2164: an unknown resource is -32602 naming the URI in `data.uri`.
    if (!read) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown resource: ${request.params.uri}`, { uri: request.params.uri });
    return read;
  });

  server.setRequestHandler('tools/call', async (request, ctx) => {
    // 2026-07-28: the request's own envelope; 2025: what `initialize` said (none on stateless HTTP).
    const envelope: Record<string, unknown> | undefined = ctx.mcpReq.envelope;
    const ui = declaresUi(envelope);
    // An app-only tool exists only for a client whose host keeps it from the model.
    const spec = servedTool(view.toolset, request.params.name) ?? (ui ? APP_TOOLS.find((t) => t.name === request.params.name) : undefined);
    // Spec 2025-11-25 and 2026-07-28 "server/tools", Error Handling: an unknown tool is a
    // protocol error (-32602); invalid arguments are a tool result the model can act on. A tool
    // outside the endpoint's toolset is unknown there.
    if (!spec) throw new ProtocolError(ProtocolErrorCode.InvalidParams, unknownTool(request.params.name, serving));
    const refused = classRefusal(view.toolset, spec, request.params.arguments);
    if (refused) return callToolResult(refused);
    const parsed = parseArgs(spec, request.params.arguments);
    if (!parsed.ok) return callToolResult(parsed.outcome);
    const clientName = clientNameOf((envelope?.[CLIENT_INFO_META_KEY] as { name?: unknown; title?: unknown } | undefined) ?? server.getClientVersion());
    const assistant = assistantChannel(era, ctx, server, options);
    const outcome = await forward(
      { spec, args: parsed.args },
      { requestId: ctx.mcpReq.id, signal: ctx.mcpReq.signal, era, ui, ...(clientName ? { clientName } : {}), ...(assistant ? { assistant } : {}) },
    );
    // Spec 2026-07-28 "basic/patterns/mrtr": the client asks the user, then retries this call
    // with the answer under the same key and the requestState echoed.
    if ('inputRequired' in outcome) {
      const { form, requestState } = outcome.inputRequired;
      return inputRequired({ inputRequests: { [DECISION_INPUT_KEY]: inputRequired.elicit(form) }, requestState });
    }
    // The era's wire codec shapes the result; our structured content is always an object, which
    // both eras carry as it is.
    return server.projectCallToolResult(callToolResult(checkOutput(spec, outcome)), listedTools().find((t) => t.name === spec.name)?.outputSchema);
  });

  return server;
}

/**
 * The name a client's `clientInfo` gives it: its title (for people), else its name, trimmed and cut
 * to MAX_CLIENT_NAME_CHARS; undefined for none. A stateless 2025-era HTTP request has none: its
 * `initialize` came in another request.
 */
export function clientNameOf(info: { name?: unknown; title?: unknown } | undefined): string | undefined {
  const pick = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');
  const name = pick(info?.title) || pick(info?.name);
  return name ? [...name].slice(0, MAX_CLIENT_NAME_CHARS).join('') : undefined;
}

/** Whether a call of tool `name` may wait for the user (a prompt or a review): any that can do more than read. */
function askable(name: string): boolean {
  const spec = toolByName(name);
  return spec !== undefined && (spec.permission !== 'read' || spec.permissionOf !== undefined);
}

/** The factory the serving entries call, once per HTTP request or stdio connection, for its era. */
export function mcpServerFactory(forward: ForwardCall, serving: McpServing = WHOLE_SERVING, options: McpOptions = {}): McpServerFactory {
  return ({ era }) => buildMcpServer(forward, era, serving, options);
}

/**
 * How the client of one tools/call can be asked (McpCallRequest.assistant): in 2026-07-28 by
 * rounds, when its envelope declares form elicitation or the request is a retry (it carries a
 * `requestState`, raw: the agent checks its integrity itself, and refuses it with a code of its
 * own); in a 2025 era by `elicitation/create`, when it declared form elicitation at `initialize`
 * and the transport carries server requests.
 */
function assistantChannel(era: McpEra, ctx: ServerContext, server: Server, options: McpOptions): AssistantChannel | undefined {
  if (era === 'modern') {
    const state = ctx.mcpReq.requestState<unknown>();
    const requestState = typeof state === 'string' ? state : undefined;
    const envelope: Record<string, unknown> | undefined = ctx.mcpReq.envelope;
    if (!elicitsForm(envelope?.[CLIENT_CAPABILITIES_META_KEY]) && requestState === undefined) return undefined;
    const responses = ctx.mcpReq.inputResponses;
    return { kind: 'rounds', ...(requestState === undefined ? {} : { requestState }), ...(responses === undefined ? {} : { inputResponses: responses }) };
  }
  if (!options.serverRequests || !elicitsForm(server.getClientCapabilities())) return undefined;
  return { kind: 'request', elicit: (form, signal) => ctx.mcpReq.elicitInput(form, { signal }) };
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
 * 2025-11-25 "Cancellation"). A stateless HTTP endpoint gets a legacy-era cancellation in another
 * POST than the request it cancels, beyond the reach of the SDK's per-request instance, so it acts
 * on these itself. (In the modern era over HTTP the stream closing is the cancellation; spec
 * 2026-07-28 "basic/transports/streamable-http", Cancellation.)
 */
export function cancelledRequestIds(messages: readonly unknown[]): RequestId[] {
  const ids: RequestId[] = [];
  for (const message of messages) {
    if (isSpecType.CancelledNotification(message) && message.params.requestId !== undefined) ids.push(message.params.requestId);
  }
  return ids;
}
