// OAuth under PUBLIC_URL (this project sets it to https://public.example/some/path and has no
// OWNER_SECRET): the issuer, the resource and every endpoint name the public origin whatever host
// the request reached, and the consent page is off without an owner secret.
import { describe, expect, it } from 'vitest';
import { relay } from '../helpers.ts';

const PUBLIC = 'https://public.example';

describe('OAuth with PUBLIC_URL', () => {
  it('the metadata documents name the public origin, not the request host', async () => {
    const resource = (await (await relay('/.well-known/oauth-protected-resource/mcp')).json()) as Record<string, unknown>;
    expect(resource).toMatchObject({ resource: `${PUBLIC}/mcp`, authorization_servers: [PUBLIC] });
    const server = (await (await relay('/.well-known/oauth-authorization-server')).json()) as Record<string, unknown>;
    expect(server).toMatchObject({ issuer: PUBLIC, authorization_endpoint: `${PUBLIC}/authorize`, token_endpoint: `${PUBLIC}/oauth/token` });
  });

  it('the 401 challenge points at the public metadata URL', async () => {
    const res = await relay('/mcp', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toContain(`resource_metadata="${PUBLIC}/.well-known/oauth-protected-resource/mcp"`);
  });

  it('without an owner secret nobody can consent: /authorize answers 503', async () => {
    expect((await relay('/authorize?client_id=x')).status).toBe(503);
  });
});
