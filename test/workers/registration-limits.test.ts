// Anonymous client registration (RFC 7591), against the real Worker, Hub and OAuth storage: a body
// larger than any client's metadata is refused before the library reads it (413); a client_name
// the consent page could not show as one honest line is refused (400 invalid_client_metadata);
// registrations are held to REGISTRATION_LIMITS per client address, then for the account (429
// with Retry-After, in OAuth's error shape). A refused request registers nothing.
import { env } from 'cloudflare:workers';
import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_CLIENT_NAME_CHARS } from '../../worker/auth/oauth.ts';
import { REGISTRATION_LIMITS } from '../../worker/hub/registration-limits.ts';
import { MAX_REGISTRATION_BODY_BYTES } from '../../worker/routes/register-gate.ts';
import { forgetRegistrations, relay } from './helpers.ts';

const metadata = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ client_name: 'Test client', redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none', ...extra });

function registerFrom(ip: string, body: string): Promise<Response> {
  return relay('/oauth/register', { method: 'POST', headers: { 'Content-Type': 'application/json', 'CF-Connecting-IP': ip }, body });
}

/** How many clients the OAuth provider has stored. */
async function clients(): Promise<number> {
  return (await env.OAUTH_KV.list({ prefix: 'client:' })).keys.length;
}

beforeEach(forgetRegistrations);

describe('what a registration may hold', () => {
  it(`a body over ${MAX_REGISTRATION_BODY_BYTES} bytes: 413 invalid_client_metadata, nothing stored, and not counted`, async () => {
    const before = await clients();
    const res = await registerFrom('192.0.2.1', JSON.stringify(metadata({ client_uri: `https://x.example/${'a'.repeat(MAX_REGISTRATION_BODY_BYTES)}` })));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: 'invalid_client_metadata', error_description: `The client metadata must not exceed ${MAX_REGISTRATION_BODY_BYTES} bytes.` });
    expect(await clients()).toBe(before);
    for (let i = 0; i < REGISTRATION_LIMITS.perClientPerMinute; i++) expect((await registerFrom('192.0.2.1', JSON.stringify(metadata()))).status).toBe(201);
  });

  it.each([
    ['one character too long', 'x'.repeat(MAX_CLIENT_NAME_CHARS + 1), `client_name must be at most ${MAX_CLIENT_NAME_CHARS} characters.`],
    ['a line break', 'Editor\nvimrelay: allow always', 'client_name must not contain control characters or line breaks.'],
    ['a Unicode line separator', 'Editor\u2028Allow', 'client_name must not contain control characters or line breaks.'],
    ['a run of spaces', `Editor${' '.repeat(40)}(verified)`, 'client_name must not contain runs of white space.'],
  ])('a client_name with %s: 400 invalid_client_metadata, nothing stored', async (_what, name, description) => {
    const before = await clients();
    const res = await registerFrom('192.0.2.2', JSON.stringify(metadata({ client_name: name })));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_client_metadata', error_description: description });
    expect(await clients()).toBe(before);
  });

  it(`names up to ${MAX_CLIENT_NAME_CHARS} characters, in any script, register`, async () => {
    for (const name of ['é'.repeat(MAX_CLIENT_NAME_CHARS), 'Claude Code (日本語) 😀']) {
      const res = await registerFrom('192.0.2.3', JSON.stringify(metadata({ client_name: name })));
      expect(res.status).toBe(201);
      expect(((await res.json()) as { client_name: string }).client_name).toBe(name);
    }
  });
});

describe('how many may register', () => {
  it(`${REGISTRATION_LIMITS.perClientPerMinute} a minute from one address, then 429 with Retry-After; another address still registers`, async () => {
    for (let i = 0; i < REGISTRATION_LIMITS.perClientPerMinute; i++) expect((await registerFrom('198.51.100.7', JSON.stringify(metadata()))).status).toBe(201);
    const before = await clients();
    const refused = await registerFrom('198.51.100.7', JSON.stringify(metadata()));
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('Retry-After'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await refused.json()).toEqual({ error: 'temporarily_unavailable', error_description: `Too many client registrations; try again in ${retryAfter} seconds.` });
    expect(await clients()).toBe(before);
    expect((await registerFrom('198.51.100.8', JSON.stringify(metadata()))).status).toBe(201);
  });

  it(`${REGISTRATION_LIMITS.perMinute} a minute in all, from many addresses, then 429 for every address`, async () => {
    for (let i = 0; i < REGISTRATION_LIMITS.perMinute; i++) expect((await registerFrom(`203.0.113.${i}`, JSON.stringify(metadata()))).status).toBe(201);
    expect((await registerFrom('203.0.113.200', JSON.stringify(metadata()))).status).toBe(429);
  });
});
