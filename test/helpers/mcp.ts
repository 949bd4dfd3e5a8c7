/**
 * A real MCP SDK client (the v2 SDK's `@modelcontextprotocol/client`; Streamable HTTP with a
 * bearer token, or stdio spawning `vimrelay serve --stdio`) in either protocol era: `modern` pins
 * 2026-07-28 (`server/discover`, no fallback), `legacy` opens with `initialize` (2025-11-25, or an
 * older revision when `legacyVersion` says so). And result helpers that hold every result to the catalog's conventions:
 * `callOk` fails the test unless the structuredContent validates against the outputSchema the
 * server listed for that tool and against the full output schema that one summarises (the
 * catalog's, as JSON Schema: protocol/schema-summary.ts; checked with @cfworker/json-schema, as
 * the servers do), the text content is the same JSON, and the text stays under
 * LIMITS.maxResultBytes; `callErr` fails it unless the error has a known code, a message and a
 * hint.
 */
import { Validator, type Schema } from '@cfworker/json-schema';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { anyToolByName, jsonSchemaOf, LIMITS, ToolError } from '../../protocol/index.ts';
import type { McpEra } from '../../protocol/mcp-server.ts';

/** The eras every behaviour suite runs through. */
export const ERAS: readonly McpEra[] = ['modern', 'legacy'];

/** The current revision, which the modern client pins. */
export const MODERN_VERSION = '2026-07-28';

export interface ClientOptions {
  /** Legacy era only: the one 2025 revision the client offers at `initialize` (default: the SDK's list, 2025-11-25 first). */
  legacyVersion?: string;
  /** The client's `clientInfo` (default: name `vimrelay-tests`). */
  info?: { name: string; title?: string; version: string };
}

/** A v2 SDK client for `era`, not yet connected. */
export function mcpClient(era: McpEra, options: ClientOptions = {}): Client {
  const info = options.info ?? { name: 'vimrelay-tests', version: '0.0.0' };
  if (era === 'modern') return new Client(info, { versionNegotiation: { mode: { pin: MODERN_VERSION } } });
  return new Client(info, options.legacyVersion === undefined ? {} : { supportedProtocolVersions: [options.legacyVersion] });
}

/** Connects over Streamable HTTP with a bearer token; `era` defaults to the current revision. */
export async function connectMcp(mcpUrl: string, token: string, era: McpEra = 'modern', options: ClientOptions = {}): Promise<Client> {
  const client = mcpClient(era, options);
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

export interface StdioConnection {
  client: Client;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** The server process's pid. */
  pid: number | null;
}

/**
 * Spawns `command args` as an MCP stdio server with exactly `env`, and connects to it in `era`
 * (never the SDK's 'auto', which would spawn a second server to probe).
 */
export async function connectStdio(command: string, args: string[], env: NodeJS.ProcessEnv, era: McpEra = 'modern', options: ClientOptions = {}): Promise<StdioConnection> {
  const transport = new StdioClientTransport({
    command,
    args,
    env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const client = mcpClient(era, options);
  await client.connect(transport);
  return { client, stderr: () => err, pid: transport.pid };
}

/** Throws unless `value` validates against `schema` (JSON Schema 2020-12, as tools/list gives it). */
export function assertMatchesSchema(schema: unknown, value: unknown, what: string): void {
  const result = new Validator(schema as Schema, '2020-12', false).validate(value);
  if (!result.valid) {
    const errors = result.errors.map((e) => `${e.instanceLocation}: ${e.error}`).join('; ');
    throw new Error(`${what} does not match its outputSchema: ${errors}`);
  }
}

/** The outputSchema of every listed tool, per client (listed once). */
const outputSchemas = new WeakMap<Client, Promise<Map<string, unknown>>>();

function outputSchemaOf(client: Client, name: string): Promise<unknown> {
  let schemas = outputSchemas.get(client);
  if (!schemas) {
    schemas = client.listTools().then(({ tools }) => new Map(tools.map((t) => [t.name, t.outputSchema])));
    outputSchemas.set(client, schemas);
  }
  return schemas.then((m) => m.get(name));
}

/**
 * Calls a tool and returns its structured content, failing the test on a tool error, on content
 * that does not match the tool's listed outputSchema, on text that is not the same JSON, or on a
 * result over LIMITS.maxResultBytes.
 */
export async function callOk(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  return resultOf(client, name, (await client.callTool({ name, arguments: args })) as CallToolResult);
}

/** The structured content of a successful result, checked as callOk checks it. */
export async function resultOf(client: Client, name: string, res: CallToolResult): Promise<Record<string, unknown>> {
  if (res.isError) throw new Error(`${name} failed: ${JSON.stringify(res.content)}`);
  const content = res.structuredContent;
  // The 2026-07-28 revision allows any JSON value here; every vimrelay result is an object.
  if (typeof content !== 'object' || content === null || Array.isArray(content)) throw new Error(`${name} returned no structuredContent object`);
  const schema = await outputSchemaOf(client, name);
  if (schema === undefined) throw new Error(`${name} has no outputSchema in tools/list`);
  assertMatchesSchema(schema, content, `${name}'s structuredContent`);
  // The catalog's, or an app-only tool's (protocol/app/card.ts).
  const spec = anyToolByName(name);
  if (!spec) throw new Error(`${name} is not in the catalog`);
  assertMatchesSchema(jsonSchemaOf(spec.output, 'output'), content, `${name}'s structuredContent (full schema)`);
  const text = res.content[0]?.type === 'text' ? res.content[0].text : undefined;
  if (text === undefined || JSON.stringify(JSON.parse(text)) !== JSON.stringify(content)) {
    throw new Error(`${name}: text content is not the same JSON as structuredContent`);
  }
  const bytes = new TextEncoder().encode(text).byteLength;
  if (bytes > LIMITS.maxResultBytes) throw new Error(`${name}: ${bytes} bytes of text, over the ${LIMITS.maxResultBytes}-byte cap`);
  return content as Record<string, unknown>;
}

/**
 * Calls a tool that must fail and returns its `error` object ({code, message, hint, ...}), failing
 * the test unless the code is a known one and the message and hint are not empty.
 */
export async function callErr(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown> & { code: string; hint: string }> {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (!res.isError) throw new Error(`${name} unexpectedly succeeded: ${JSON.stringify(res.structuredContent)}`);
  return errorOf(name, res);
}

/** The `error` of a failed result, checked as callErr checks it. */
export function errorOf(name: string, res: CallToolResult): Record<string, unknown> & { code: string; hint: string } {
  const first = res.content[0];
  if (first?.type !== 'text') throw new Error(`${name}: error without text content`);
  const body = JSON.parse(first.text) as { error?: unknown };
  const parsed = ToolError.safeParse(body.error);
  if (!parsed.success) throw new Error(`${name}: the error is not {code, message, hint}: ${first.text}`);
  if (!parsed.data.message.trim() || !parsed.data.hint.trim()) throw new Error(`${name}: the error has an empty message or hint: ${first.text}`);
  return parsed.data;
}
