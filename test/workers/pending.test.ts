// The Pending page against the real Worker and Hub in workerd, with fake agents over real sockets
// (the real agent and editors are in test/e2e/pending-page.test.ts): what an agent publishes is
// listed by device and editor, whole and escaped, kept in the Hub's SQLite and dropped when the
// agent leaves; an answer is carried to the agent that holds the decision and the page says what
// the agent made of it. Each refusal is tested as the attack it refuses: a form without the
// session's CSRF token or with another session's, a made-up or changed decision or nonce
// (FORGED), the same form sent twice (REPLAYED), a decision of another account's device (the Hub
// is the account's: UNKNOWN_DEVICE, and that account's agent hears nothing), one another device
// holds (OTHER_DEVICE), one nobody holds (NOT_PENDING), one already decided (ALREADY_DECIDED,
// naming where: the Hub says it of what the agent listed as settled, the agent of the rest), and
// another device's agent answering for it (dropped).
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DecideResult, HubMessage, WireDecision } from '../../protocol/index.ts';
import { hubFor } from '../../worker/account.ts';
import { decisionNonce } from '../../worker/auth/decision-forms.ts';
import { SESSION_COOKIE } from '../../worker/auth/session.ts';
import type { Hub } from '../../worker/hub/hub.ts';
import { BASE, deviceJwt, editor, FakeAgent, ownerSession, relay, uniqueName } from './helpers.ts';

const agents: FakeAgent[] = [];

afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

let cookie: string;
beforeAll(async () => {
  cookie = await ownerSession('/dashboard/pending');
});

let ids = 0;
/** A prompt decision as an agent publishes it. */
function prompt(overrides: Partial<WireDecision> = {}): WireDecision {
  ids += 1;
  return {
    id: `decision-${String(ids).padStart(12, '0')}`,
    kind: 'prompt',
    editor: 'nvim-1',
    editor_name: 'work',
    client: 'claude',
    tool: 'run_command',
    klass: 'exec',
    paths: ['/home/u/project/a.txt'],
    sections: [{ title: null, lines: [':!make test'], chars: 11 }],
    offers: ['allow', 'deny'],
    expires_at: new Date(Date.now() + 60_000).toISOString(),
    ...overrides,
  };
}

/** A device online with `decisions` published; the agent, and the device's id. */
async function publishing(decisions: WireDecision[], name = uniqueName('pending-')): Promise<{ agent: FakeAgent; deviceId: string; name: string }> {
  const minted = await deviceJwt(name);
  const { agent } = await FakeAgent.online(minted.token, [editor('nvim-1', { name: 'work' })]);
  agents.push(agent);
  agent.send({ type: 'decisions', decisions });
  // Published once the page lists them (the Hub handles the message on its own).
  await expect.poll(async () => (await pendingPage()).body).toContain(decisions[0]?.id ?? 'Nothing waits');
  return { agent, deviceId: minted.device.id, name };
}

/** GET /dashboard/pending with the owner's session. */
async function pendingPage(session = cookie): Promise<{ status: number; body: string; csrf: string }> {
  const res = await relay('/dashboard/pending', { headers: { Cookie: session }, redirect: 'manual' });
  const body = await res.text();
  return { status: res.status, body, csrf: /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '' };
}

/** The fields of an answer form, as the page renders them. */
interface Form {
  csrf: string;
  device: string;
  decision: string;
  nonce: string;
}

/** The fields of decision `id`'s form as the page renders it. */
async function formOf(id: string): Promise<Form> {
  const { body } = await pendingPage();
  const card = new RegExp(`<article class="decision" id="d-${id}"[\\s\\S]*?</article>`).exec(body)?.[0];
  if (!card) throw new Error(`the page does not list ${id}`);
  const field = (name: string): string => new RegExp(`name="${name}" value="([^"]*)"`).exec(card)?.[1] ?? '';
  return { csrf: field('csrf'), device: field('device'), decision: field('decision'), nonce: field('nonce') };
}

/** POSTs an answer form; the page's status, its outcome code and its text. */
async function answer(fields: Record<string, string>, session = cookie): Promise<{ status: number; outcome: string | null; body: string }> {
  const res = await relay('/dashboard/pending', { method: 'POST', headers: { Cookie: session }, body: new URLSearchParams(fields), redirect: 'manual' });
  const body = await res.text();
  return { status: res.status, outcome: /data-outcome="([^"]+)"/.exec(body)?.[1] ?? null, body };
}

/** The agent's next message, which must be a `decide`; answered with `result`. */
async function decides(agent: FakeAgent, result: DecideResult): Promise<Extract<HubMessage, { type: 'decide' }>> {
  const message = await agent.next('decide');
  agent.send({ type: 'decided', id: message.id, result });
  return message;
}

/** The session of a Cookie header value, as the page's forms are bound to it. */
function sessionOf(header: string): { id: string; expiresAtMs: number } {
  const [expiry, id] = header.slice(`${SESSION_COOKIE}=`.length).split('.');
  return { id: id ?? '', expiresAtMs: Number(expiry) };
}

describe('the list', () => {
  it('shows what an agent publishes by device and editor, whole and escaped as the editor shows it, with its forms', async () => {
    const hostile = prompt({
      client: '<script>alert(1)</script>',
      editor_name: 'work\u202etxt.exe',
      sections: [{ title: null, lines: [':echo "a\u0007b"', `:let x = 1${' '.repeat(40)}+ hidden`], chars: 60 }],
    });
    const review = prompt({ kind: 'review', tool: 'apply_diff', klass: 'write', offers: ['reject'], sections: [{ title: '/home/u/project/b.txt', lines: null, chars: 250_000 }] });
    const { name } = await publishing([hostile, review]);
    const { status, body } = await pendingPage();
    expect(status).toBe(200);
    expect(body).not.toMatch(/<script/i);
    expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(body).toContain('work⟨U+202E⟩txt.exe');
    expect(body).toContain(':echo &quot;a^Gb&quot;');
    expect(body).toContain('⟨40 spaces⟩+ hidden');
    expect(body).toContain(`<h2>${name}</h2>`);
    expect(body).toContain(`${name}/nvim-1`);
    // The prompt offers allow and deny; the review, too long to show whole, reject alone.
    const card = (id: string): string => new RegExp(`id="d-${id}"[\\s\\S]*?</article>`).exec(body)?.[0] ?? '';
    expect(card(hostile.id)).toContain('>Allow once</button>');
    expect(card(hostile.id)).toContain('>Deny</button>');
    expect(card(review.id)).not.toContain('Accept');
    expect(card(review.id)).toContain('250,000 characters: too long to show here whole');
    expect(card(review.id)).toContain('>Reject</button>');
  });

  it('keeps them in the Hub\'s storage while the agent is connected, and drops them when it leaves', async () => {
    const decision = prompt();
    const { agent, deviceId } = await publishing([decision]);
    const stored = (): Promise<number> =>
      runInDurableObject(hubFor(env), (_hub: Hub, state) => state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM decisions WHERE device_id = ?', deviceId).one().n);
    expect(await stored()).toBe(1);
    await agent.close();
    expect(await stored()).toBe(0);
    expect((await pendingPage()).body).not.toContain(decision.id);
  });

  it('refuses decisions before hello, and a list that breaks the schema, keeping the link', async () => {
    const early = await FakeAgent.connect((await deviceJwt(uniqueName('early-'))).token);
    agents.push(early);
    early.send({ type: 'decisions', decisions: [] });
    expect((await early.closed).code).toBe(4003);

    const { agent } = await publishing([prompt()]);
    agent.send({ type: 'decisions', decisions: [prompt({ sections: [{ title: null, lines: ['x'.repeat(100_001)], chars: 100_001 }] })] });
    expect((await agent.next('error')).code).toBe('BAD_MESSAGE');
    agent.send({ type: 'decisions', decisions: [prompt({ kind: 'prompt', offers: ['accept'] })] });
    expect((await agent.next('error')).code).toBe('BAD_MESSAGE');
  });
});

describe('answers', () => {
  it('carries an allow to the agent, which settles it, and the page says what came of it', async () => {
    const decision = prompt();
    const { agent, deviceId } = await publishing([decision]);
    const form = await formOf(decision.id);
    expect(form.device).toBe(deviceId);
    const [page, sent] = await Promise.all([answer({ ...form, answer: 'allow' }), decides(agent, { ok: true, said: 'allowed' })]);
    expect(sent).toMatchObject({ decision: decision.id, answer: { kind: 'allow' } });
    expect(page).toMatchObject({ status: 200, outcome: 'allowed' });
    expect(page.body).toContain('Allowed once');
  });

  it('carries a deny with its reason', async () => {
    const decision = prompt();
    const { agent } = await publishing([decision]);
    const form = await formOf(decision.id);
    const [page, sent] = await Promise.all([answer({ ...form, answer: 'deny', reason: '  not now  ' }), decides(agent, { ok: true, said: 'denied' })]);
    expect(sent.answer).toEqual({ kind: 'deny', reason: 'not now' });
    expect(page).toMatchObject({ status: 200, outcome: 'denied' });
  });

  it('says where a decision was decided when the agent refuses an answer to it', async () => {
    const decision = prompt();
    const { agent } = await publishing([decision]);
    const form = await formOf(decision.id);
    const [page] = await Promise.all([answer({ ...form, answer: 'allow' }), decides(agent, { ok: false, code: 'ALREADY_DECIDED', by: 'editor' })]);
    expect(page).toMatchObject({ status: 409, outcome: 'ALREADY_DECIDED' });
    expect(page.body).toContain('Already decided in the editor');
  });

  it('answers DEVICE_OFFLINE when the agent leaves before it answers', async () => {
    const decision = prompt();
    const { agent } = await publishing([decision]);
    const form = await formOf(decision.id);
    const page = answer({ ...form, answer: 'allow' });
    await agent.next('decide');
    await agent.close();
    expect(await page).toMatchObject({ status: 503, outcome: 'DEVICE_OFFLINE' });
  });
});

describe('refusals, each as the attack it refuses', () => {
  it('a forged form: without CSRF, with another session\'s, with a made-up or changed decision or nonce; nothing reaches the agent', async () => {
    const decision = prompt();
    const other = prompt();
    const { agent } = await publishing([decision, other]);
    const form = await formOf(decision.id);
    const otherForm = await formOf(other.id);
    const otherSession = await ownerSession('/dashboard/pending');
    const otherCsrf = (await pendingPage(otherSession)).csrf;
    expect(otherCsrf).not.toBe(form.csrf);

    const { csrf: _csrf, ...noCsrf } = form;
    expect((await answer({ ...noCsrf, answer: 'allow' })).status).toBe(403);
    expect((await answer({ ...form, csrf: otherCsrf, answer: 'allow' })).status).toBe(403);
    // A signed-out browser is sent to sign in.
    expect((await answer({ ...form, answer: 'allow' }, `${SESSION_COOKIE}=1.2.3`)).status).toBe(303);
    // The nonce's MAC changed in its first character, all six of whose bits are the MAC's (its last
    // two, which the test once replaced with "AA", were those already once in about a thousand runs).
    const [random, expiry, tag = ''] = form.nonce.split('.');
    const changed = `${random}.${expiry}.${tag.startsWith('A') ? 'B' : 'A'}${tag.slice(1)}`;
    expect(changed).not.toBe(form.nonce);
    for (const forged of [
      { ...form, decision: 'made-up-decision-0000' },
      { ...form, decision: other.id },
      { ...form, nonce: otherForm.nonce },
      { ...form, nonce: changed },
      { ...form, nonce: '' },
    ]) {
      expect(await answer({ ...forged, answer: 'allow' })).toMatchObject({ status: 403, outcome: 'FORGED' });
    }
    // The other session's own form is its own: it does not pass in this one.
    const theirs = { ...form, csrf: otherCsrf };
    expect((await answer({ ...theirs, answer: 'allow' }, otherSession)).outcome).toBe('FORGED');

    // The first message the agent gets is the one real answer after them all.
    const [page, sent] = await Promise.all([answer({ ...form, answer: 'deny' }), decides(agent, { ok: true, said: 'denied' })]);
    expect(sent.answer).toEqual({ kind: 'deny' });
    expect(page.outcome).toBe('denied');
  });

  it('a replayed form: the same post again is REPLAYED, and the agent hears it once', async () => {
    const decision = prompt();
    const { agent } = await publishing([decision]);
    const fields = { ...(await formOf(decision.id)), answer: 'allow' };
    const [first] = await Promise.all([answer(fields), decides(agent, { ok: true, said: 'allowed' })]);
    expect(first.outcome).toBe('allowed');
    expect(await answer(fields)).toMatchObject({ status: 409, outcome: 'REPLAYED' });
    // Nothing more was sent: the agent's next message is this sentinel's answer.
    const sentinel = { ...(await formOf(decision.id)), answer: 'deny' };
    const [, next] = await Promise.all([answer(sentinel), decides(agent, { ok: false, code: 'ALREADY_DECIDED', by: 'dashboard' })]);
    expect(next.answer).toEqual({ kind: 'deny' });
  });

  it('a decision of another account\'s device cannot be reached: UNKNOWN_DEVICE, and that account\'s agent hears nothing', async () => {
    const theirs = hubFor(env, 'another-account');
    const enrolled = await theirs.enrollDevice('their-laptop', null);
    const jwt = await theirs.deviceJwt(enrolled.credential, BASE);
    if (!jwt) throw new Error('no device JWT from the other account\'s Hub');
    const { agent: theirAgent } = await FakeAgent.online(jwt.token, [editor('nvim-9')], { hub: theirs });
    agents.push(theirAgent);
    const decision = prompt({ editor: 'nvim-9' });
    theirAgent.send({ type: 'decisions', decisions: [decision] });
    await expect.poll(async () => (await theirs.pendingDecisions()).flatMap((d) => d.decisions.map((x) => x.id))).toEqual([decision.id]);
    // Not on the owner's page, whatever that account holds.
    expect((await pendingPage()).body).not.toContain(decision.id);
    // Even a form signed for this sign-in and that decision, naming that device, reaches nothing.
    const { csrf } = await pendingPage();
    const nonce = await decisionNonce(env.OWNER_SECRET ?? '', sessionOf(cookie), decision.id, Date.now());
    expect(await answer({ csrf, device: enrolled.device.id, decision: decision.id, nonce, answer: 'allow' })).toMatchObject({ status: 404, outcome: 'UNKNOWN_DEVICE' });
    // Its agent's next message is the answer to this bad message, not a decide.
    theirAgent.send('not json');
    expect((await theirAgent.next('error')).code).toBe('BAD_MESSAGE');
  });

  it('another device\'s decision: OTHER_DEVICE, and an answer from another device\'s agent is dropped', async () => {
    const mine = prompt();
    const a = await publishing([mine]);
    const b = await publishing([prompt()]);
    const form = await formOf(mine.id);
    expect(await answer({ ...form, device: b.deviceId, answer: 'allow' })).toMatchObject({ status: 409, outcome: 'OTHER_DEVICE' });

    const page = answer({ ...(await formOf(mine.id)), answer: 'allow' });
    const sent = await a.agent.next('decide');
    // B's agent answers for A's decision first: the Hub drops it.
    b.agent.send({ type: 'decided', id: sent.id, result: { ok: true, said: 'denied' } });
    a.agent.send({ type: 'decided', id: sent.id, result: { ok: true, said: 'allowed' } });
    expect(await page).toMatchObject({ status: 200, outcome: 'allowed' });
  });

  it('a decision settled already: ALREADY_DECIDED saying where, then, once forgotten, NOT_PENDING; nothing sent', async () => {
    const gone = prompt();
    const { agent } = await publishing([gone]);
    const form = await formOf(gone.id);
    const still = prompt();
    agent.send({ type: 'decisions', decisions: [still], settled: [{ id: gone.id, by: 'editor' }] });
    await expect.poll(async () => (await pendingPage()).body).not.toContain(gone.id);
    const settled = await answer({ ...form, answer: 'allow' });
    expect(settled).toMatchObject({ status: 409, outcome: 'ALREADY_DECIDED' });
    expect(settled.body).toContain('Already decided in the editor');
    // The agent no longer lists it as settled: a form for it (one the page made before) finds nothing.
    agent.send({ type: 'decisions', decisions: [still] });
    const fresh = (): Promise<string> => decisionNonce(env.OWNER_SECRET ?? '', sessionOf(cookie), gone.id, Date.now());
    await expect.poll(async () => (await answer({ ...form, nonce: await fresh(), answer: 'allow' })).outcome).toBe('NOT_PENDING');
    expect(await answer({ ...form, nonce: await fresh(), answer: 'allow' })).toMatchObject({ status: 410, outcome: 'NOT_PENDING' });
    const [, next] = await Promise.all([answer({ ...(await formOf(still.id)), answer: 'allow' }), decides(agent, { ok: true, said: 'allowed' })]);
    expect(next.decision).toBe(still.id);
  });

  it('an answer the page does not make: INVALID_ANSWER, nothing sent', async () => {
    const decision = prompt();
    const { agent } = await publishing([decision]);
    const form = await formOf(decision.id);
    expect(await answer({ ...form, answer: 'allow_always' })).toMatchObject({ status: 400, outcome: 'INVALID_ANSWER' });
    expect(await answer({ ...form, answer: '' })).toMatchObject({ status: 400, outcome: 'INVALID_ANSWER' });
    const [, next] = await Promise.all([answer({ ...(await formOf(decision.id)), answer: 'deny' }), decides(agent, { ok: true, said: 'denied' })]);
    expect(next.answer).toEqual({ kind: 'deny' });
  });
});
