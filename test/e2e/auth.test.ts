// End to end, real wrangler dev: tokens on /mcp and device credentials on /agent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveRelayCredentials } from '../../agent/config/credentials.ts';
import { paths } from '../../agent/config/paths.ts';
import { runCli, isolatedEnv, startAgentProcess } from '../helpers/agent-process.ts';
import { callErr, connectMcp } from '../helpers/mcp.ts';
import { withRelay, type TestRelay } from '../helpers/relay.ts';

let relay: TestRelay;
beforeAll(async () => {
  relay = await withRelay();
});
afterAll(async () => {
  await relay?.stop();
});

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } },
};

async function postMcp(headers: Record<string, string>): Promise<Response> {
  return fetch(relay.mcpUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(initialize),
  });
}

describe('access tokens on /mcp', () => {
  it('a missing token gets 401 with WWW-Authenticate', async () => {
    const res = await postMcp({});
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it('an invalid token gets 401 invalid_token', async () => {
    const res = await postMcp({ Authorization: 'Bearer not-a-jwt' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('an expired token gets 401 invalid_token', async () => {
    const token = await relay.mint({ kind: 'access', name: 'short', ttl_seconds: 1 });
    expect((await postMcp({ Authorization: `Bearer ${token}` })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2_100));
    const res = await postMcp({ Authorization: `Bearer ${token}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('a device credential is not an access token', async () => {
    const device = await relay.mint({ kind: 'device', name: 'not-a-client' });
    const res = await postMcp({ Authorization: `Bearer ${device}` });
    expect(res.status).toBe(401);
  });

  it('a call with no editor online answers NO_EDITOR at once', async () => {
    const client = await connectMcp(relay.mcpUrl, await relay.mint({ kind: 'access', name: 'e2e' }));
    const err = await callErr(client, 'read_buffer', {});
    expect(err.code).toBe('NO_EDITOR');
    expect(err.hint).toMatch(/list_editors/);
    await client.close();
  });
});

describe('device credentials on /agent', () => {
  it('an agent with a bad device JWT is refused and exits saying so', async () => {
    const env = isolatedEnv({ VIMRELAY_OWNER_SECRET: relay.ownerSecret });
    expect(runCli(['enroll', '--relay', relay.url, '--name', 'good'], env).status).toBe(0);
    // Replace the stored credential with one signed by nobody we know.
    const forged = ['eyJhbGciOiJFUzI1NiIsInR5cCI6InZpbXJlbGF5LWRldmljZStqd3QifQ', 'eyJzdWIiOiJ4In0', 'c2ln'].join('.');
    saveRelayCredentials(paths(env).credentials, relay.url, { device_token: forged });
    const agent = startAgentProcess(['--relay', relay.url, '--discover-dir', String(env.XDG_RUNTIME_DIR)], env);
    expect(await agent.exited).toBe(1);
    expect(agent.output()).toMatch(/refused this device's credential \(HTTP 401\)/);
  });

  it('an access token is not a device credential', async () => {
    const env = isolatedEnv();
    saveRelayCredentials(paths(env).credentials, relay.url, { device_token: await relay.mint({ kind: 'access', name: 'x' }) });
    const agent = startAgentProcess(['--relay', relay.url, '--discover-dir', String(env.XDG_RUNTIME_DIR)], env);
    expect(await agent.exited).toBe(1);
  });
});
