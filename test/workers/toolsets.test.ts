// What a client sees of the catalog at the relay (README "Toolsets"), against the real Worker in
// workerd: tools/list narrowed by the token's scopes and by the endpoint's toolset (`/mcp/<set>`),
// in both eras, with private cache hints; calls outside what is listed (403 step-up for a scope the
// grant lacks, -32602 for a tool the toolset does not serve, PERMISSION_DENIED for a class it does
// not serve); a toolset name that names none refused before authentication; each toolset's own
// protected resource metadata and 401 challenge; and a real SDK client authorizing itself for
// `/mcp/read`, which asks for `read` alone and gets a token that reads wherever it is used.
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { env, exports } from 'cloudflare:workers';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { parseToolset, type Toolset } from '../../protocol/index.ts';
import type { McpEra } from '../../protocol/mcp-server.ts';
import { approve, signIn, type Fetcher } from '../helpers/consent-flow.ts';
import { MemoryProvider } from '../helpers/oauth-client.ts';
import { BASE, forgetRegistrations, mcpClient, mint, outcomeOf, postMcp, relay, uniqueName } from './helpers.ts';

const READ_TOOLS = ['list_editors', 'connect_editor', 'get_state_brief', 'get_state', 'read_buffer', 'grep_buffers', 'get_diagnostics', 'lsp_definition', 'lsp_references', 'lsp_hover', 'lsp_symbols', 'lsp_calls', 'lsp_types', 'lsp_rename', 'lsp_code_actions', 'lsp_format', 'review_status'];
const EVERY_SCOPE = ['read', 'write', 'open', 'save', 'exec', 'terminal'];

function toolset(name: string): Toolset {
  const parsed = parseToolset(name);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.toolset;
}

const call = (id: number, name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

async function rpc(res: Response): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  if (res.status !== 200) throw new Error(`answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

describe.each<McpEra>(['modern', 'legacy'])('tools/list follows the grant and the toolset (%s era)', (era) => {
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
  });
  async function listed(scopes: string[], path = '/mcp'): Promise<{ name: string; description?: string }[]> {
    const { token } = await mint({ kind: 'access', name: uniqueName('list'), scopes });
    const client = await mcpClient(token, era, path);
    clients.push(client);
    return (await client.listTools()).tools;
  }

  it('a read-only token: the read tools, lsp_rename as a preview saying so, and no write, exec or terminal tool', async () => {
    const tools = await listed(['read']);
    expect(tools.map((t) => t.name)).toEqual(READ_TOOLS);
    for (const name of ['lsp_rename', 'lsp_code_actions', 'lsp_format']) expect(tools.find((t) => t.name === name)?.description, name).toMatch(/Preview only here: this connection's grant lacks the write scope/);
  });

  it('read and write: the edits too, but not open_file, save_buffer, or the exec tools', async () => {
    const names = (await listed(['read', 'write'])).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['find_and_replace', 'apply_diff', 'lsp_rename', 'review_status']));
    for (const absent of ['open_file', 'save_buffer', 'run_command', 'send_keys', 'send_to_terminal']) expect(names).not.toContain(absent);
  });

  it('every scope at /mcp: the whole catalog; at /mcp/exec: list_editors and the exec tools', async () => {
    expect((await listed(EVERY_SCOPE)).length).toBe(toolset('read+edit+exec').tools.length);
    expect((await listed(EVERY_SCOPE, '/mcp/exec')).map((t) => t.name)).toEqual(['list_editors', 'run_command', 'send_keys', 'send_to_terminal']);
  });

  it('/mcp/read with a token that may write: lsp_rename is still a preview there, and says why', async () => {
    const tools = await listed(EVERY_SCOPE, '/mcp/read');
    expect(tools.map((t) => t.name)).toEqual(READ_TOOLS);
    expect(tools.find((t) => t.name === 'lsp_rename')?.description).toMatch(/toolset \(read\) serves no write calls/);
  });

  it('/mcp/lsp+read is /mcp/read+lsp', async () => {
    expect((await listed(['read', 'write'], '/mcp/lsp+read')).map((t) => t.name)).toEqual(READ_TOOLS);
  });
});

describe('the 2026-07-28 era', () => {
  const MODERN = '2026-07-28';
  const envelope = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' } };
  const modern = (token: string, method: string, path: string) =>
    postMcp(token, { jsonrpc: '2.0', id: 1, method, params: { _meta: envelope } }, { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': method }, path);

  it('tools/list is private to the token (spec 2026-07-28 caching); server/discover of a toolset speaks only of its tools', async () => {
    const { token } = await mint({ kind: 'access', name: uniqueName('modern'), scopes: ['read', 'exec'] });
    const list = await rpc(await modern(token, 'tools/list', '/mcp/exec'));
    expect(list.result).toMatchObject({ resultType: 'complete', ttlMs: 300_000, cacheScope: 'private' });
    // No terminal scope: send_to_terminal is not listed.
    expect((list.result?.tools as { name: string }[]).map((t) => t.name)).toEqual(['list_editors', 'run_command', 'send_keys']);
    const discover = await rpc(await modern(token, 'server/discover', '/mcp/exec'));
    expect(discover.result).toMatchObject({ cacheScope: 'public', capabilities: { tools: {} } });
    const instructions = String(discover.result?.instructions);
    expect(instructions).toMatch(/list_editors/);
    expect(instructions).not.toMatch(/get_state_brief|review_status|lsp_/);
  });
});

describe('calls outside what is listed', () => {
  it('a tool the grant does not list still answers 403 insufficient_scope naming its scope, so that step-up works', async () => {
    const reader = await mint({ kind: 'access', name: uniqueName('reader'), scopes: ['read'] });
    const denied = await postMcp(reader.token, call(1, 'run_command', { commands: 'echo 1' }));
    expect(denied.status).toBe(403);
    expect(denied.headers.get('WWW-Authenticate')).toContain('error="insufficient_scope", scope="read write exec"');
  });

  it('at a toolset, the 403 names its own metadata and asks for what it asks first plus the missing scope', async () => {
    const reader = await mint({ kind: 'access', name: uniqueName('nav'), scopes: ['read'] });
    const denied = await postMcp(reader.token, call(1, 'lsp_rename', { line: 1, col: 1, new_name: 'x', apply: true, expected_changedtick: 1 }), {}, '/mcp/lsp');
    expect(denied.status).toBe(403);
    const challenge = denied.headers.get('WWW-Authenticate') ?? '';
    expect(challenge).toContain('scope="read write"');
    expect(challenge).toContain(`resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp/lsp"`);
  });

  it('a tool outside the toolset is unknown there (-32602), whatever the token may do; no 403 asks for a scope it could not use', async () => {
    for (const scopes of [['read'], EVERY_SCOPE]) {
      const { token } = await mint({ kind: 'access', name: uniqueName('outside'), scopes });
      const answer = await rpc(await postMcp(token, call(1, 'write_buffer', { buffer: 1, text: 'x' }), {}, '/mcp/read'));
      expect(answer.error?.code, scopes.join(' ')).toBe(-32602);
      expect(answer.error?.message).toMatch(/^Unknown tool: write_buffer \(this endpoint serves the read toolset: list_editors, /);
    }
  });

  it('a call of a class the toolset does not serve is a PERMISSION_DENIED result, even with a token that has it', async () => {
    const { token } = await mint({ kind: 'access', name: uniqueName('full'), scopes: EVERY_SCOPE });
    const args = { line: 1, col: 1, new_name: 'x' };
    const applied = outcomeOf(await rpc(await postMcp(token, call(1, 'lsp_rename', { ...args, apply: true, expected_changedtick: 1 }), {}, '/mcp/read')) as Parameters<typeof outcomeOf>[0]);
    expect(!applied.ok && applied.error.code).toBe('PERMISSION_DENIED');
    expect(!applied.ok && applied.error.message).toContain('toolset (read)');
    // The preview passes on to the Hub, which has no editor.
    const preview = outcomeOf(await rpc(await postMcp(token, call(2, 'lsp_rename', args), {}, '/mcp/read')) as Parameters<typeof outcomeOf>[0]);
    expect(!preview.ok && preview.error.code).toBe('NO_EDITOR');
  });

  it('a code action that runs a server command needs exec, which /mcp/lsp does not serve; its edits alone pass', async () => {
    const { token } = await mint({ kind: 'access', name: uniqueName('actions'), scopes: EVERY_SCOPE });
    const at = { line: 1, col: 1, apply: true, expected_changedtick: 1 };
    const command = outcomeOf(await rpc(await postMcp(token, call(1, 'lsp_code_actions', { ...at, id: 'x0123abcd:Extract to function' }), {}, '/mcp/lsp')) as Parameters<typeof outcomeOf>[0]);
    expect(!command.ok && command.error.code).toBe('PERMISSION_DENIED');
    expect(!command.ok && command.error.message).toContain('needs the exec permission, which this endpoint\'s toolset (lsp)');
    const edit = outcomeOf(await rpc(await postMcp(token, call(2, 'lsp_code_actions', { ...at, id: 'e0123abcd:Organize Imports' }), {}, '/mcp/lsp')) as Parameters<typeof outcomeOf>[0]);
    expect(!edit.ok && edit.error.code).toBe('NO_EDITOR');
    const served = outcomeOf(await rpc(await postMcp(token, call(3, 'lsp_code_actions', { ...at, id: 'x0123abcd:Extract to function' }), {}, '/mcp/lsp+exec')) as Parameters<typeof outcomeOf>[0]);
    expect(!served.ok && served.error.code).toBe('NO_EDITOR');
  });
});

describe('toolset URLs', () => {
  it.each([
    ['/mcp/raed', 'no toolset is named "raed"'],
    ['/mcp/read+', 'has an empty toolset name'],
    ['/mcp/read/extra', 'nothing below it'],
    ['/mcp/', 'has an empty toolset name'],
  ])('%s is refused before authentication, 404 saying why and naming the toolsets', async (path, says) => {
    const res = await postMcp(null, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, {}, path);
    expect(res.status).toBe(404);
    const { error } = (await res.json()) as { error: { message: string } };
    expect(error.message).toContain(says);
    expect(error.message).toMatch(/read, edit, lsp, exec, show|Every tool is at \/mcp/);
  });

  it('a percent-encoded + names the same toolset', async () => {
    const { token } = await mint({ kind: 'access', name: uniqueName('pct'), scopes: ['read'] });
    const answer = await rpc(await postMcp(token, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, {}, '/mcp/read%2Blsp'));
    expect((answer.result?.tools as { name: string }[]).map((t) => t.name)).toEqual(READ_TOOLS);
  });

  it.each([
    ['/mcp/read', ['read']],
    ['/mcp/edit', ['read', 'write', 'open', 'save']],
    ['/mcp/lsp+read', ['read', 'write']],
    ['/mcp/exec', ['read', 'exec', 'terminal']],
  ])('%s has its own protected resource metadata (RFC 9728 §3.1, §3.3): its URL, the scopes it serves', async (path, scopes) => {
    const res = await relay(`/.well-known/oauth-protected-resource${path}`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc).toMatchObject({ resource: `${BASE}${path}`, authorization_servers: [BASE], scopes_supported: scopes, bearer_methods_supported: ['header'] });
  });

  it('no metadata for a toolset that does not exist', async () => {
    expect((await relay('/.well-known/oauth-protected-resource/mcp/raed')).status).toBe(404);
  });

  it.each([
    ['/mcp/read', 'read'],
    ['/mcp/exec', 'read exec terminal'],
    ['/mcp/edit+show', 'read write open save'],
  ])('an anonymous request to %s is challenged with its metadata and the scopes of its plainest calls', async (path, scope) => {
    const res = await postMcp(null, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, {}, path);
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toBe(`Bearer realm="OAuth", resource_metadata="${BASE}/.well-known/oauth-protected-resource${path}", scope="${scope}"`);
  });

  it('a refused token at a toolset is challenged with its metadata too', async () => {
    const res = await postMcp('not-a-token', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, {}, '/mcp/read');
    expect(res.status).toBe(401);
    const challenge = res.headers.get('WWW-Authenticate') ?? '';
    expect(challenge).toContain(`resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp/read"`);
    expect(challenge).toContain('error="invalid_token"');
  });
});

describe('an SDK client connecting to /mcp/read', () => {
  const REDIRECT = 'http://127.0.0.1:43119/callback';
  const fetcher: Fetcher = (url, init) => exports.default.fetch(new Request(url, init));
  const transport = (provider: MemoryProvider, path: string) =>
    new StreamableHTTPClientTransport(new URL(`${BASE}${path}`), { authProvider: provider, fetch: (url, init) => exports.default.fetch(new Request(url, init)) });
  beforeEach(forgetRegistrations);

  it('discovers the toolset, asks for read alone, and the token it gets reads, at /mcp too, and writes nowhere', async () => {
    const provider = new MemoryProvider(REDIRECT, 'toolset client', 'ts-state');
    await expect(new Client({ name: 'ts', version: '0' }).connect(transport(provider, '/mcp/read'))).rejects.toBeInstanceOf(UnauthorizedError);
    const url = provider.authorizationUrl;
    if (!url) throw new Error('the SDK never asked for authorization');
    // The client names the toolset's URL as its resource (RFC 8707), and asks for what the challenge named.
    expect(url.searchParams.get('resource')).toBe(`${BASE}/mcp/read`);
    expect(url.searchParams.get('scope')).toBe('read');
    const session = await signIn(fetcher, BASE, env.OWNER_SECRET ?? '');
    const back = await approve(fetcher, BASE, url.toString(), session, 'as ticked');
    const first = transport(provider, '/mcp/read');
    await first.finishAuth(back.searchParams);
    expect(provider.saved?.scope).toBe('read');

    const client = new Client({ name: 'ts', version: '0' });
    await client.connect(transport(provider, '/mcp/read'));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(READ_TOOLS);
    } finally {
      await client.close();
    }
    // The authority is the token's scopes, wherever it is used: at /mcp it reads, and an edit is 403.
    const token = provider.saved?.access_token ?? '';
    const whole = await rpc(await postMcp(token, { jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    expect((whole.result?.tools as { name: string }[]).map((t) => t.name)).toEqual(READ_TOOLS);
    expect((await postMcp(token, call(2, 'write_buffer', { buffer: 1, text: 'x' }))).status).toBe(403);
  });
});
