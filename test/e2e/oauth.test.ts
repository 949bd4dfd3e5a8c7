// End to end, a real relay in local workerd, a real agent process and a real headless Neovim: an MCP SDK
// client authorizes itself with OAuth (its own `auth()` through an OAuthClientProvider: discovery
// from the 401, dynamic registration with a loopback redirect URI, PKCE S256, the resource
// indicator), the owner consents once through the real sign-in and consent forms, allowing what
// the page ticked, and the client then reads and edits the editor's buffer; a save steps up.
// Then refresh rotation and a revoked grant.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type OAuthTokens } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedEnv, runCli, startAgentProcess, type AgentProcess } from '../helpers/agent-process.ts';
import { approve, NO_COOKIE, type Fetcher } from '../helpers/consent-flow.ts';
import { MemoryProvider } from '../helpers/oauth-client.ts';
import { callOk } from '../helpers/mcp.ts';
import { startNvim, type NvimFixture } from '../helpers/nvim.ts';
import { ownerBasic, withRelay, type TestRelay } from '../helpers/relay.ts';
import { waitFor } from '../helpers/wait.ts';

// Nothing listens here: the test reads the code off the redirect, as a client's listener would.
const REDIRECT = 'http://127.0.0.1:43118/callback';
const TEXT = 'première ligne\nzweite Zeile\n';

/** The owner's browser at the local relay: asked for the owner secret (HTTP Basic), it sends it with every request there. */
const owner: Fetcher = (url, init = {}) =>
  fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string> | undefined), Authorization: ownerBasic(relay.ownerSecret) } });

let relay: TestRelay;
let agent: AgentProcess;
let nvim: NvimFixture;

beforeAll(async () => {
  relay = await withRelay();
  const env = isolatedEnv();
  const sockets = join(String(env.HOME), 'sockets');
  mkdirSync(sockets, { recursive: true });
  nvim = await startNvim({ files: { 'notes.txt': TEXT }, open: ['notes.txt'], listen: join(sockets, 'nvim.oauth.0') });
  const enrolled = runCli(['enroll', '--relay', relay.url, '--name', 'oauth-box'], { ...env, VIMRELAY_OWNER_SECRET: relay.ownerSecret });
  if (enrolled.status !== 0) throw new Error(`enroll failed: ${enrolled.stderr}`);
  agent = startAgentProcess(['--relay', relay.url, '--discover-dir', sockets], env);
  await agent.waitFor('connected to relay');
}, 60_000);

afterAll(async () => {
  await agent?.stop();
  await nvim?.stop();
  await relay?.stop();
});

function newClient(): Client {
  return new Client({ name: 'vimrelay-oauth-e2e', version: '0.0.0' });
}

/**
 * Runs the whole authorization with the SDK: 401 -> discovery -> DCR -> consent, allowed as the
 * page opens (the scopes the client asked for ticked) -> tokens. The scopes the SDK asked for.
 */
async function authorize(provider: MemoryProvider): Promise<string[]> {
  const first = new StreamableHTTPClientTransport(new URL(relay.mcpUrl), { authProvider: provider });
  // No tokens yet: the SDK discovers, registers, and sends the user to the authorization URL.
  await expect(newClient().connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  const url = provider.authorizationUrl;
  if (!url) throw new Error('the SDK never asked for authorization');
  expect(url.origin + url.pathname).toBe(`${relay.url}/authorize`);
  expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  expect(url.searchParams.get('resource')).toBe(relay.mcpUrl);
  const back = await approve(owner, relay.url, url.toString(), NO_COOKIE, 'as ticked');
  expect(back.origin + back.pathname).toBe(REDIRECT);
  expect(back.searchParams.get('state')).toBe('e2e-state');
  expect(back.searchParams.get('iss')).toBe(relay.url);
  // The SDK reads `code` and `iss` from the callback and checks `iss` first (RFC 9207 §2.4).
  await first.finishAuth(back.searchParams);
  await first.close();
  return url.searchParams.get('scope')?.split(' ') ?? [];
}

function tokenEndpoint(params: Record<string, string>): Promise<Response> {
  return fetch(`${relay.url}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params) });
}

function listTools(accessToken: string): Promise<Response> {
  return fetch(relay.mcpUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
}

describe('OAuth end to end', () => {
  const provider = new MemoryProvider(REDIRECT, 'vimrelay e2e client', 'e2e-state');

  it('the SDK client registers, the owner consents once, and the client reads and edits the live buffer', async () => {
    // The client asks for what the 401 challenge names, an ordinary session's scopes, and the
    // consent page opens with them ticked: one consent covers reading and editing.
    expect(await authorize(provider)).toEqual(['read', 'write']);
    expect(provider.client?.client_id).toBeTruthy();
    expect(provider.saved?.scope?.split(' ').sort()).toEqual(['read', 'write']);

    const client = newClient();
    await client.connect(new StreamableHTTPClientTransport(new URL(relay.mcpUrl), { authProvider: provider }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('read_buffer');
      const editor = await waitFor(async () => {
        const editors = (await callOk(client, 'list_editors')).editors as { id: string; pid: number }[];
        return editors.find((e) => e.pid === nvim.pid)?.id;
      }, 15_000, 'the editor to appear in list_editors');
      const read = await callOk(client, 'read_buffer', { editor, buffer: 'notes.txt' });
      expect(read.lines).toEqual(['première ligne', 'zweite Zeile']);
      // An edit needs no second trip to the browser.
      provider.authorizationUrl = undefined;
      const edited = await callOk(client, 'find_and_replace', { editor, buffer: 'notes.txt', old_text: 'zweite', new_text: 'second', expected_changedtick: read.changedtick });
      expect(edited.changedtick).not.toBe(read.changedtick);
      expect(provider.authorizationUrl).toBeUndefined();
      // Outside the granted scopes: HTTP 403 insufficient_scope naming the scopes the call needs
      // (MCP 2025-11-25 "Scope Challenge Handling"). The SDK steps up: it sends the user back to
      // the authorization endpoint for them, and the call fails until the user consents.
      await expect(client.callTool({ name: 'save_buffer', arguments: { editor, buffer: 'notes.txt' } })).rejects.toBeInstanceOf(UnauthorizedError);
      // Set by the SDK during the call (TypeScript narrowed it to undefined above).
      const asked = provider.authorizationUrl as URL | undefined;
      expect(asked?.searchParams.get('scope')?.split(' ')).toEqual(['read', 'write', 'save']);
    } finally {
      await client.close();
    }
  });

  // A used refresh token presented again revokes the grant: test/workers/oauth.test.ts › refresh token reuse.
  it('refresh rotates: each refresh gives a new refresh token, which works', async () => {
    const clientId = provider.client?.client_id ?? '';
    const old = provider.saved?.refresh_token ?? '';
    const r1 = await tokenEndpoint({ grant_type: 'refresh_token', refresh_token: old, client_id: clientId });
    expect(r1.status).toBe(200);
    const rotated = (await r1.json()) as OAuthTokens;
    expect(rotated.refresh_token).toBeTruthy();
    expect(rotated.refresh_token).not.toBe(old);
    expect((await listTools(rotated.access_token)).status).toBe(200);
    const r2 = await tokenEndpoint({ grant_type: 'refresh_token', refresh_token: rotated.refresh_token ?? '', client_id: clientId });
    expect(r2.status).toBe(200);
    const latest = (await r2.json()) as OAuthTokens;
    expect((await listTools(latest.access_token)).status).toBe(200);
    provider.saveTokens(latest);
  });

  it('a revoked grant: its tokens are refused with 401 (RFC 7009 revocation, which revokes the grant)', async () => {
    const tokens = provider.saved;
    if (!tokens?.refresh_token) throw new Error('no tokens');
    expect((await listTools(tokens.access_token)).status).toBe(200);
    const revoked = await tokenEndpoint({ token: tokens.refresh_token, token_type_hint: 'refresh_token', client_id: provider.client?.client_id ?? '' });
    expect(revoked.status).toBe(200);
    const res = await listTools(tokens.access_token);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});
