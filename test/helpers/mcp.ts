/** A real MCP SDK client over Streamable HTTP with a bearer token, and result helpers. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export async function connectMcp(mcpUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: 'vimrelay-tests', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** Calls a tool and returns its structured content, failing the test on a tool error. */
export async function callOk(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (res.isError) throw new Error(`${name} failed: ${JSON.stringify(res.content)}`);
  if (!res.structuredContent) throw new Error(`${name} returned no structuredContent`);
  const text = res.content[0]?.type === 'text' ? res.content[0].text : undefined;
  if (text === undefined || JSON.stringify(JSON.parse(text)) !== JSON.stringify(res.structuredContent)) {
    throw new Error(`${name}: text content is not the same JSON as structuredContent`);
  }
  return res.structuredContent;
}

/** Calls a tool that must fail and returns its `error` object ({code, message, hint, ...}). */
export async function callErr(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown> & { code: string; hint: string }> {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (!res.isError) throw new Error(`${name} unexpectedly succeeded: ${JSON.stringify(res.structuredContent)}`);
  const first = res.content[0];
  if (first?.type !== 'text') throw new Error(`${name}: error without text content`);
  const body = JSON.parse(first.text) as { error: Record<string, unknown> & { code: string; hint: string } };
  return body.error;
}
