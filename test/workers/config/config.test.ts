// The optional variables, in a project that sets them (see vitest.config.ts): CALL_DEADLINE_MS=200
// (the agent's deadline, the Hub's grace after it, the TIMEOUT path), PUBLIC_URL (issuer and audience), ALLOWED_ORIGINS, and no OWNER_SECRET.
// The admin API is off here, so tokens are minted over the Hub's RPC, as the admin route does.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, LIMITS, PROMPT_TIMEOUT_HINT } from '../../../protocol/index.ts';
import { TOKEN_TTL } from '../../../worker/auth/tokens.ts';
import { admin, editor, errorCode, FakeAgent, outcomeOf, postMcp, rawCall } from '../helpers.ts';

const PUBLIC = 'https://public.example';
const hub = () => env.HUB.get(env.HUB.idFromName('owner'));

function mintRpc(kind: 'access', name: string) {
  return hub().mintToken({ kind, name, scopes: [...ALL_SCOPES], ttlSeconds: TOKEN_TTL.accessDefault, origin: PUBLIC, subject: 'owner' });
}

/** A new device and a device JWT for it, over the Hub's RPC as the admin and agent routes do. */
async function deviceRpc(name: string): Promise<{ token: string }> {
  const { credential } = await hub().enrollDevice(name, null);
  const jwt = await hub().deviceJwt(credential, PUBLIC);
  if (!jwt) throw new Error('a fresh credential was refused');
  return jwt;
}

let access: string;
beforeAll(async () => {
  access = (await mintRpc('access', 'config-tests')).token;
});

describe('OWNER_SECRET unset', () => {
  it('the admin API answers 503 whatever the credentials', async () => {
    for (const secret of [null, 'anything']) {
      const res = await admin('GET', '/tokens', undefined, secret);
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_CONFIGURED');
    }
  });
});

describe('PUBLIC_URL', () => {
  it('names the issuer and audience, whatever host the request used', async () => {
    const verdict = await hub().verifyToken(access, 'access', PUBLIC);
    expect(verdict).toMatchObject({ valid: true, claims: { iss: PUBLIC, aud: `${PUBLIC}/mcp` } });
    // The test reaches the Worker as https://relay.test; the token names public.example.
    expect((await postMcp(access, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(200);
  });

  it('a token naming the request host instead is refused', async () => {
    const local = await hub().mintToken({ kind: 'access', name: 'local', scopes: ['read'], ttlSeconds: 60, origin: 'https://relay.test', subject: 'owner' });
    const res = await postMcp(local.token, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toContain('issued by another relay');
  });
});

describe('ALLOWED_ORIGINS', () => {
  it.each([PUBLIC, 'https://app.example', 'https://relay.test'])('allows %s', async (origin) => {
    expect((await postMcp(access, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { Origin: origin })).status).toBe(200);
  });

  it('still refuses others', async () => {
    expect((await postMcp(access, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { Origin: 'https://evil.example' })).status).toBe(403);
  });
});

describe('CALL_DEADLINE_MS', () => {
  it("the agent's own answer after its deadline, within the Hub's grace, is the client's answer", async () => {
    const device = await deviceRpc('denying');
    const { agent } = await FakeAgent.online(device.token, [editor('nvim-1')]);
    const pending = rawCall(access, 'save_buffer', { buffer: 1, expected_changedtick: 1 });
    const call = await agent.next('call');
    expect(call.deadline_ms).toBe(200);
    // As an agent whose prompt nobody answered: its denial comes at about its deadline.
    await new Promise((resolve) => setTimeout(resolve, call.deadline_ms));
    agent.answer(call.id, { ok: false, error: { code: 'PERMISSION_DENIED', message: 'Nobody answered the prompt.', hint: 'h' } });
    expect(errorCode(outcomeOf(await pending))).toBe('PERMISSION_DENIED');
    await agent.close();
  });

  it('an unanswered call is cancelled on the agent and answered TIMEOUT; a late result is dropped', async () => {
    const device = await deviceRpc('slow');
    const { agent } = await FakeAgent.online(device.token, [editor('nvim-1')]);

    const pending = rawCall(access, 'write_buffer', { buffer: 1, text: 'x', expected_changedtick: 1 });
    const call = await agent.next('call');
    expect(call.deadline_ms).toBe(200);
    // Never answered: the Hub gives up at the deadline plus its grace and tells the agent so.
    expect(await agent.next('cancel')).toEqual({ type: 'cancel', id: call.id });
    const outcome = outcomeOf(await pending);
    expect(errorCode(outcome)).toBe('TIMEOUT');
    expect(!outcome.ok && outcome.error.message).toContain(`waited ${200 + LIMITS.hubGraceMs} ms`);
    expect(!outcome.ok && outcome.error.hint).toMatch(/read_buffer/);

    // The late result changes nothing; the call is not retried and the link still works.
    agent.answer(call.id, { ok: true, data: {} });
    const next = rawCall(access, 'get_state_brief', {});
    const call2 = await agent.next('call');
    expect(call2.id).not.toBe(call.id);
    expect(call2.tool).toBe('get_state_brief');
    agent.answer(call2.id, { ok: false, error: { code: 'UNSUPPORTED', message: 'm', hint: 'h' } });
    expect(errorCode(outcomeOf(await next))).toBe('UNSUPPORTED');
    await agent.close();
  });

  it('a tool with its own TIMEOUT hint (run_command: a prompt may hold the editor) gets it', async () => {
    const device = await deviceRpc('prompting');
    const { agent } = await FakeAgent.online(device.token, [editor('nvim-1')]);
    const pending = rawCall(access, 'run_command', { commands: "call input('x')" });
    await agent.next('call');
    const outcome = outcomeOf(await pending);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT', hint: PROMPT_TIMEOUT_HINT } });
    await agent.close();
  });
});
