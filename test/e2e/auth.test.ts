// End to end, a real relay in local workerd: tokens on /mcp, and device credentials and device JWTs on /agent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveRelayCredentials } from '../../agent/config/credentials.ts';
import { paths } from '../../agent/config/paths.ts';
import { writePrivateFile } from '../../agent/config/private-file.ts';
import { createDevice } from '../../agent/relay/admin.ts';
import { DeviceTokens } from '../../agent/relay/device-token.ts';
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

  it('neither a device credential nor a device JWT is an access token', async () => {
    const { credential } = await createDevice(relay.url, relay.ownerSecret, 'not-a-client');
    expect((await postMcp({ Authorization: `Bearer ${credential}` })).status).toBe(401);
    const { token } = await new DeviceTokens({ relayUrl: relay.url, credential }).get();
    expect((await postMcp({ Authorization: `Bearer ${token}` })).status).toBe(401);
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
  it('an agent with an unknown device credential is refused and exits saying to pair again', async () => {
    const env = isolatedEnv({ VIMRELAY_OWNER_SECRET: relay.ownerSecret });
    expect(runCli(['enroll', '--relay', relay.url, '--name', 'good'], env).status).toBe(0);
    // Replace the stored credential with one the relay never issued.
    saveRelayCredentials(paths(env).credentials, relay.url, { device_credential: 'vrd_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    const agent = startAgentProcess(['--relay', relay.url, '--discover-dir', String(env.XDG_RUNTIME_DIR)], env);
    expect(await agent.exited).toBe(1);
    expect(agent.output()).toMatch(/refused this device's credential \(HTTP 401\)/);
    expect(agent.output()).toMatch(/vimrelay pair/);
  });

  it('an access token is not a device credential', async () => {
    const env = isolatedEnv();
    saveRelayCredentials(paths(env).credentials, relay.url, { device_credential: await relay.mint({ kind: 'access', name: 'x' }) });
    const agent = startAgentProcess(['--relay', relay.url, '--discover-dir', String(env.XDG_RUNTIME_DIR)], env);
    expect(await agent.exited).toBe(1);
  });

  it('the agent reuses a device JWT while it has time to spare, and fetches a new one otherwise', async () => {
    const { credential } = await createDevice(relay.url, relay.ownerSecret, 'rotating');
    // Plenty of time left (the JWT lives 600 s): the same JWT again.
    const keeping = new DeviceTokens({ relayUrl: relay.url, credential, refreshBeforeMs: 60_000 });
    const first = await keeping.get();
    expect(first.fresh).toBe(true);
    expect(await keeping.get()).toEqual({ token: first.token, fresh: false });
    // Refused at an upgrade (expired): dropped, and the next one is new.
    keeping.invalidate();
    const renewed = await keeping.get();
    expect(renewed.fresh).toBe(true);
    expect(renewed.token).not.toBe(first.token);
    // Closer to expiry than the margin: rotated before it can expire on a reconnect.
    const rotating = new DeviceTokens({ relayUrl: relay.url, credential, refreshBeforeMs: 600_000 });
    const a = await rotating.get();
    const b = await rotating.get();
    expect([a.fresh, b.fresh]).toEqual([true, true]);
    expect(b.token).not.toBe(a.token);
  });

  it('a credentials file from before device credentials says to pair again', () => {
    const env = isolatedEnv();
    writePrivateFile(paths(env).credentials, JSON.stringify({ relays: { [relay.url]: { device_token: 'eyJ.old.jwt' } } }));
    const run = runCli(['agent', '--relay', relay.url, '--discover-dir', String(env.XDG_RUNTIME_DIR)], env);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`vimrelay pair ${relay.url}`);
  });
});
