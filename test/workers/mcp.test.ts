// /mcp through a real MCP SDK client (the v2 client's StreamableHTTPClientTransport into the
// Worker), in both eras: the 2026-07-28 client (server/discover) and the 2025 one (initialize);
// tools/list from the catalog, and tools/call failures that need no agent. Each file has its own
// Hub storage, and no agent connects in this file. The 2026-07-28 wire rules, request by request,
// are in mcp-modern.test.ts.
import { ProtocolError, type Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listedTool, TOOLS } from '../../protocol/index.ts';
import type { McpEra } from '../../protocol/mcp-server.ts';
import { mcpClient, mint, outcomeOf, postMcp, rawCall, uniqueName } from './helpers.ts';

describe.each<McpEra>(['modern', 'legacy'])('the %s era', (era) => {
  let client: Client;

  beforeAll(async () => {
    const token = (await mint({ kind: 'access', name: uniqueName('mcp') })).token;
    client = await mcpClient(token, era);
  });

  afterAll(async () => {
    await client.close();
  });

  describe('connect', () => {
    it('negotiates the era and names the server, with the tools capability', () => {
      expect(client.getProtocolEra()).toBe(era);
      expect(client.getServerVersion()?.name).toBe('vimrelay');
      expect(client.getServerCapabilities()?.tools).toBeDefined();
      expect(client.getInstructions()).toMatch(/list_editors/);
    });
  });

  describe('tools/list', () => {
    it('lists the whole catalog, in order, with no agent online', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
      expect(tools).toEqual(TOOLS.map(listedTool));
    });

    it('every tool has a title, an object outputSchema and complete annotations', async () => {
      const { tools } = await client.listTools();
      for (const tool of tools) {
        expect(tool.title, tool.name).toBeTruthy();
        expect(tool.inputSchema.type, tool.name).toBe('object');
        expect(tool.outputSchema?.type, tool.name).toBe('object');
        expect(tool.annotations?.title, `${tool.name}: the title is said once, at the top`).toBeUndefined();
        expect(tool.annotations, tool.name).toMatchObject({
          readOnlyHint: expect.any(Boolean),
          destructiveHint: expect.any(Boolean),
          idempotentHint: expect.any(Boolean),
          openWorldHint: false,
        });
      }
    });
  });

  describe('tools/call without an agent', () => {
    it('an unknown tool is a JSON-RPC error (-32602), not a tool result', async () => {
      const err = await client.callTool({ name: 'format_disk', arguments: {} }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ProtocolError);
      expect((err as ProtocolError).code).toBe(-32602);
      expect((err as ProtocolError).message).toContain('Unknown tool: format_disk');
    });

    it('arguments failing the schema are an INVALID_ARGUMENT tool result listing the issues', async () => {
      const result = await client.callTool({ name: 'read_buffer', arguments: { start_line: 0, bogus: true } });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      const content = result.content as { type: string; text: string }[];
      const { error } = JSON.parse(content[0]?.text ?? '') as { error: { code: string; message: string; hint: string; issues: { path: string }[] } };
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.hint).toMatch(/read_buffer/);
      expect(error.issues.map((i) => i.path)).toEqual(expect.arrayContaining(['start_line']));
      expect(error.message).toMatch(/bogus/);
    });

    it('list_editors answers from the registry: none online', async () => {
      const result = await client.callTool({ name: 'list_editors', arguments: {} });
      expect(result.isError).toBeFalsy();
      // The SDK client validated structuredContent against the tool's outputSchema already.
      expect(result.structuredContent).toEqual({ editors: [], count: 0 });
      const content = result.content as { type: string; text: string }[];
      expect(JSON.parse(content[0]?.text ?? '')).toEqual({ editors: [], count: 0 });
    });

    it('a call that needs an editor fails NO_EDITOR at once', async () => {
      const result = await client.callTool({ name: 'get_state_brief', arguments: {} });
      expect(result.isError).toBe(true);
      const content = result.content as { type: string; text: string }[];
      const { error } = JSON.parse(content[0]?.text ?? '') as { error: { code: string; hint: string } };
      expect(error.code).toBe('NO_EDITOR');
      expect(error.hint).toMatch(/list_editors/);
    });
  });
});

describe('scopes', () => {
  // MCP 2025-11-25 "Scope Challenge Handling": a call outside the token's scopes is HTTP 403
  // insufficient_scope, before the Hub (which enforces them again, hub.test.ts).
  it('a read-only token may read but not write', async () => {
    const reader = await mint({ kind: 'access', name: uniqueName('reader'), scopes: ['read'] });
    expect(outcomeOf(await rawCall(reader.token, 'list_editors', {})).ok).toBe(true);
    const denied = await postMcp(reader.token, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'write_buffer', arguments: { buffer: 1, text: 'x' } } });
    expect(denied.status).toBe(403);
    expect(denied.headers.get('WWW-Authenticate')).toContain('error="insufficient_scope", scope="read write"');
  });

  it('a read-only token may preview lsp_rename but not apply it: the class follows `apply`', async () => {
    const reader = await mint({ kind: 'access', name: uniqueName('renamer'), scopes: ['read'] });
    const args = { line: 1, col: 1, new_name: 'x' };
    // Past the scope check: answered by the Hub (no editor online), not refused with 403.
    const preview = outcomeOf(await rawCall(reader.token, 'lsp_rename', args));
    expect(!preview.ok && preview.error.code).toBe('NO_EDITOR');
    const denied = await postMcp(reader.token, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'lsp_rename', arguments: { ...args, apply: true, expected_changedtick: 1 } } });
    expect(denied.status).toBe(403);
    expect(denied.headers.get('WWW-Authenticate')).toContain('error="insufficient_scope", scope="read write"');
  });

  it('a token without exec may list code actions and apply an edit, but not one that runs a server command', async () => {
    const writer = await mint({ kind: 'access', name: uniqueName('fixer'), scopes: ['read', 'write'] });
    const at = { line: 1, col: 1, apply: true, expected_changedtick: 1 };
    // Past the scope check: answered by the Hub (no editor online), not refused with 403.
    const edit = outcomeOf(await rawCall(writer.token, 'lsp_code_actions', { ...at, id: 'ef102935f:Organize Imports' }));
    expect(!edit.ok && edit.error.code).toBe('NO_EDITOR');
    const denied = await postMcp(writer.token, { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'lsp_code_actions', arguments: { ...at, id: 'x2945264d:Extract to function in module scope' } } });
    expect(denied.status).toBe(403);
    expect(denied.headers.get('WWW-Authenticate')).toContain('error="insufficient_scope", scope="read write exec"');
  });

  it('a write-only token may not even list editors: the challenge names read, with an ordinary session\'s scopes', async () => {
    const writer = await mint({ kind: 'access', name: uniqueName('writer'), scopes: ['write'] });
    const denied = await postMcp(writer.token, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_editors', arguments: {} } });
    expect(denied.status).toBe(403);
    expect(denied.headers.get('WWW-Authenticate')).toContain('error="insufficient_scope", scope="read write"');
  });
});
