// One agent per device, and which one (worker/hub/takeover.ts), with fake agents over real
// WebSockets to the real Hub: a newcomer with the device's credential but without the live
// agent's takeover key is refused (409 DEVICE_IN_USE, no upgrade) while the live agent stays and
// serves, is told (`takeover_refused`, with the address) and the attempt is on the device list and
// the dashboard; a newcomer proving the live key (a restart) takes over at once, the old one closed
// 4000 saying so; the device's first key takes the device back from one that connected while it was
// away, which then cannot come back; an agent from before takeover keys is replaced as before.
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TAKEOVER_HEADER } from '../../protocol/index.ts';
import { DeviceStore } from '../../worker/auth/devices.ts';
import { hashSecret, sameHash } from '../../worker/auth/pairing.ts';
import type { Hub } from '../../worker/hub/hub.ts';
import { decideTakeover } from '../../worker/hub/takeover.ts';
import { admin, deviceJwt, editor, FakeAgent, mint, outcomeOf, ownerSession, rawCall, relay, uniqueName, upgrade } from './helpers.ts';

let access: Awaited<ReturnType<typeof mint>>;
const agents: FakeAgent[] = [];

/** A fresh takeover proof: 32 random bytes, base64url. */
function proof(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** An agent online as the device of `token`, proving `key` (null: none) from `address`; closed after the test. */
async function online(token: string, key: string | null, address: string, replyToClose = true) {
  const headers: Record<string, string> = { 'CF-Connecting-IP': address, ...(key === null ? {} : { [TAKEOVER_HEADER]: key }) };
  const { agent, welcome } = await FakeAgent.online(token, [editor('nvim-1')], { replyToClose, headers });
  agents.push(agent);
  return { agent, welcome };
}

async function deviceRow(id: string): Promise<{ last_refused_at: string | null; last_refused_from: string | null; online: boolean }> {
  const res = await admin('GET', '/devices');
  const { devices } = (await res.json()) as { devices: { id: string; last_refused_at: string | null; last_refused_from: string | null; online: boolean }[] };
  const row = devices.find((d) => d.id === id);
  if (!row) throw new Error(`no device ${id}`);
  return row;
}

beforeAll(async () => {
  access = await mint({ kind: 'access', name: 'takeover-tests' });
});

afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

describe('a newer connection of a live device', () => {
  it('without the live agent\'s key is refused, the live agent told and still serving, the attempt on the device list and the dashboard', async () => {
    const minted = await deviceJwt(uniqueName('stolen'));
    const live = await online(minted.token, proof(), '198.51.100.7');

    for (const key of [null, proof()]) {
      const res = await upgrade(minted.token, { 'CF-Connecting-IP': '203.0.113.9', ...(key === null ? {} : { [TAKEOVER_HEADER]: key }) });
      expect(res.status).toBe(409);
      expect(res.webSocket).toBeNull();
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('DEVICE_IN_USE');
      expect(body.error.message).toMatch(/Another agent is connected as device .*did not prove its takeover key/);
      // The attacker learns nothing of where the live agent is.
      expect(body.error.message).not.toContain('198.51.100.7');
    }
    // Told once: the second refusal within the minute is recorded, not told (the next message is the call below).
    expect(await live.agent.next('takeover_refused')).toMatchObject({ address: '203.0.113.9' });

    const pending = rawCall(access.token, 'read_buffer', { editor: `${minted.device.name}/nvim-1` });
    const call = await live.agent.next('call');
    live.agent.answer(call.id, { ok: true, data: { buf: 1, path: '/x', changedtick: 2, total_lines: 1, start_line: 1, end_line: 1, lines: ['still here'], truncated: false, next_start_line: null } });
    expect(outcomeOf(await pending)).toMatchObject({ ok: true, data: { lines: ['still here'] } });

    const row = await deviceRow(minted.device.id);
    expect(row).toMatchObject({ online: true, last_refused_from: '203.0.113.9' });
    expect(Date.parse(row.last_refused_at ?? '')).toBeGreaterThan(Date.now() - 60_000);
    const page = await (await relay('/dashboard', { headers: { Cookie: await ownerSession() } })).text();
    expect(page).toContain('connection refused');
    expect(page).toContain('from 203.0.113.9: it had this device\'s credential but not its agent\'s key');
  });

  it('proving the live agent\'s key (a restart) takes over at once: the old one closed 4000 saying so, the new one told', async () => {
    const minted = await deviceJwt(uniqueName('restart'));
    const key = proof();
    const first = await online(minted.token, key, '198.51.100.7', false);
    const second = await online(minted.token, key, '198.51.100.8');
    expect(await first.agent.closed).toEqual({ code: 4000, reason: 'replaced by a newer connection of this same agent from 198.51.100.8' });
    expect(second.welcome.took_over).toMatchObject({ address: '198.51.100.7', how: 'same_key' });
    expect(Date.parse(second.welcome.took_over?.since ?? '')).toBeGreaterThan(0);
    expect((await deviceRow(minted.device.id)).last_refused_at).toBeNull();
  });

  it('proving the device\'s first key takes it back from one that connected while it was away, which cannot come back', async () => {
    const minted = await deviceJwt(uniqueName('squat'));
    const own = proof();
    const squatter = proof();
    const first = await online(minted.token, own, '198.51.100.7');
    await first.agent.close();
    agents.splice(agents.indexOf(first.agent), 1);
    // Nobody live: the other key is let in.
    const other = await online(minted.token, squatter, '203.0.113.9', false);
    expect(other.welcome.took_over).toBeUndefined();
    const back = await online(minted.token, own, '198.51.100.7');
    expect(await other.agent.closed).toEqual({ code: 4000, reason: 'replaced by the device\'s first agent (its key) from 198.51.100.7' });
    expect(back.welcome.took_over).toMatchObject({ address: '203.0.113.9', how: 'first_key' });
    const again = await upgrade(minted.token, { 'CF-Connecting-IP': '203.0.113.9', [TAKEOVER_HEADER]: squatter });
    expect(again.status).toBe(409);
    expect(await back.agent.next('takeover_refused')).toMatchObject({ address: '203.0.113.9' });
  });

  it('replaces an agent from before takeover keys as before, and then holds against one without the key', async () => {
    const minted = await deviceJwt(uniqueName('upgrade'));
    const old = await online(minted.token, null, '198.51.100.7', false);
    const upgraded = await online(minted.token, proof(), '198.51.100.7');
    expect((await old.agent.closed).code).toBe(4000);
    expect(upgraded.welcome.took_over).toMatchObject({ how: 'keyless' });
    expect((await upgrade(minted.token, {})).status).toBe(409);
  });

  it('refuses a takeover header that holds no proof, with 400', async () => {
    const minted = await deviceJwt(uniqueName('garbled'));
    const res = await upgrade(minted.token, { [TAKEOVER_HEADER]: 'not a proof' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('BAD_TAKEOVER_PROOF');
  });
});

describe('a relay from before takeover keys', () => {
  it('gains their columns, and its devices keep working', async () => {
    const hub = env.HUB.get(env.HUB.idFromName('before-takeover-keys'));
    await runInDurableObject(hub, async (_hub: Hub, state) => {
      const sql = state.storage.sql;
      // The table as it was made before takeover keys, holding a paired device.
      sql.exec('DROP TABLE device_credentials');
      sql.exec('CREATE TABLE device_credentials (device_id TEXT PRIMARY KEY REFERENCES devices(id), credential_hash TEXT NOT NULL UNIQUE, hostname TEXT, revoked_at INTEGER)');
      sql.exec("INSERT INTO devices (id, name, created_at) VALUES ('d-old', 'old-box', 1)");
      sql.exec("INSERT INTO device_credentials (device_id, credential_hash, hostname) VALUES ('d-old', ?, 'old.example')", await hashSecret('vrd_paired-before'));
      const devices = new DeviceStore(state.storage);
      expect(await devices.byCredential('vrd_paired-before')).toEqual({ id: 'd-old', name: 'old-box' });
      expect(devices.list().find((d) => d.id === 'd-old')).toMatchObject({ hostname: 'old.example', revoked: false, last_refused_at: null, last_refused_from: null });
      expect(devices.firstTakeoverKey('d-old')).toBeNull();
      devices.keepFirstTakeoverKey('d-old', 'first');
      devices.keepFirstTakeoverKey('d-old', 'second');
      expect(devices.firstTakeoverKey('d-old')).toBe('first');
    });
  });
});

describe('decideTakeover', () => {
  const same = (a: string, b: string): boolean => sameHash(a, b);
  it.each([
    ['nobody live', 'k1', [], null, { admit: true, how: 'free' }],
    ['nobody live, no key', null, [], 'k1', { admit: true, how: 'free' }],
    ['the live key', 'k1', ['k1'], 'k0', { admit: true, how: 'same_key' }],
    ['the first key', 'k0', ['k1'], 'k0', { admit: true, how: 'first_key' }],
    ['a live agent without a key', null, [null], null, { admit: true, how: 'keyless' }],
    ['another key', 'k2', ['k1'], 'k1', { admit: false }],
    ['no key', null, ['k1'], 'k1', { admit: false }],
    ['another key, no first key yet', 'k2', ['k1'], null, { admit: false }],
  ] as const)('%s', (_label, newcomer, live, first, verdict) => {
    expect(decideTakeover(newcomer, live, first, same)).toEqual(verdict);
  });
});
