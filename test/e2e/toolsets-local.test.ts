// `vimrelay serve --tools` end to end (README "Toolsets"): the real CLI over stdio and over HTTP,
// a real MCP SDK client in both eras. The server lists the toolsets it was given and nothing else,
// a tool outside them is unknown there, and a call of a class they do not serve (an lsp_rename that
// applies, through `read`) is refused before it could reach an editor. The cache hints are public:
// the local server's one caller has every class, so its list depends on `--tools` alone.
import type { Client } from '@modelcontextprotocol/client';
import { ProtocolError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseToolset } from '../../protocol/index.ts';
import { CLI, isolatedEnv } from '../helpers/agent-process.ts';
import { connectMcp, connectStdio, ERAS, errorOf, MODERN_VERSION } from '../helpers/mcp.ts';
import { startServeHttp, type ServeHttpProcess } from '../helpers/serve-process.ts';

function toolNames(text: string): string[] {
  const parsed = parseToolset(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.toolset.tools.map((t) => t.name);
}

async function unknownTool(client: Client, name: string): Promise<ProtocolError> {
  const err = await client.callTool({ name, arguments: {} }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProtocolError);
  return err as ProtocolError;
}

describe.each(ERAS)('serve --stdio --tools read (%s era)', (era) => {
  let client: Client;
  beforeAll(async () => {
    const env = isolatedEnv();
    client = (await connectStdio(process.execPath, [CLI, 'serve', '--stdio', '--tools', 'read', '--discover-dir', String(env.XDG_RUNTIME_DIR)], env, era)).client;
  }, 30_000);
  afterAll(async () => {
    await client?.close();
  });

  it('lists the read toolset, lsp_rename as a preview saying why', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(toolNames('read'));
    expect(tools.find((t) => t.name === 'lsp_rename')?.description).toMatch(/toolset \(read\) serves no write calls/);
  });

  it('a tool outside it is unknown there, naming the toolset', async () => {
    const err = await unknownTool(client, 'run_command');
    expect(err.code).toBe(-32602);
    expect(err.message).toMatch(/Unknown tool: run_command \(this endpoint serves the read toolset: list_editors, /);
  });

  it('an lsp_rename that applies is refused (PERMISSION_DENIED) before any editor is asked', async () => {
    const res = await client.callTool({ name: 'lsp_rename', arguments: { line: 1, col: 1, new_name: 'x', apply: true, expected_changedtick: 1 } });
    const error = errorOf('lsp_rename', res as Parameters<typeof errorOf>[1]);
    expect(error.code).toBe('PERMISSION_DENIED');
    expect(error.message).toContain('toolset (read)');
  });
});

describe('serve --http --tools exec+lsp', () => {
  let serve: ServeHttpProcess;
  beforeAll(async () => {
    const env = isolatedEnv();
    serve = await startServeHttp(['--port', '0', '--tools', 'exec+lsp', '--discover-dir', String(env.XDG_RUNTIME_DIR)], env);
  }, 30_000);
  afterAll(async () => {
    await serve?.stop();
  });

  it.each(ERAS)('lists those toolsets in catalog order, and refuses read_buffer as unknown (%s era)', async (era) => {
    const client = await connectMcp(serve.mcpUrl, serve.token, era);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(toolNames('exec+lsp'));
      // lsp_rename applies here: no preview note.
      expect(tools.find((t) => t.name === 'lsp_rename')?.description).not.toMatch(/Preview only/);
      expect((await unknownTool(client, 'read_buffer')).message).toMatch(/this endpoint serves the lsp\+exec toolset/);
    } finally {
      await client.close();
    }
  });

  it('tools/list is cached publicly: it depends on --tools, not on the caller', async () => {
    const envelope = { 'io.modelcontextprotocol/protocolVersion': MODERN_VERSION, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' } };
    const res = await fetch(serve.mcpUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${serve.token}`, 'MCP-Protocol-Version': MODERN_VERSION, 'Mcp-Method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } }),
    });
    expect(res.status).toBe(200);
    const { result } = (await res.json()) as { result: { cacheScope: string; ttlMs: number; tools: unknown[] } };
    expect(result).toMatchObject({ cacheScope: 'public', ttlMs: 300_000 });
    expect(result.tools).toHaveLength(toolNames('exec+lsp').length);
  });
});
