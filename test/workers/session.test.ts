// The owner's browser session: sign-in with OWNER_SECRET, the signed cookie, CSRF tokens, and
// `next` kept on this origin. Runs in workerd against the real Worker.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { cookieValue, csrfToken, csrfValid, localPath, readSession, SESSION_COOKIE, SESSION_TTL_MS, startSession } from '../../worker/auth/session.ts';
import { MAX_FORM_BYTES } from '../../worker/http/session-guard.ts';
import { BASE, relay } from './helpers.ts';

const SECRET = env.OWNER_SECRET ?? '';

function signInForm(secret: string, next: string): RequestInit {
  return { method: 'POST', body: new URLSearchParams({ secret, next }), redirect: 'manual' };
}

function withCookie(setCookie: string): Request {
  return new Request(`${BASE}/dashboard`, { headers: { Cookie: setCookie.split(';')[0] ?? '' } });
}

describe('sign-in', () => {
  it('shows the form, and refuses a wrong secret with 401 and no cookie', async () => {
    const form = await relay('/signin?next=%2Fpair%3Fcode%3DABCD');
    expect(form.status).toBe(200);
    expect(form.headers.get('Content-Security-Policy')).toContain("frame-ancestors 'none'");
    expect(await form.text()).toContain('value="/pair?code=ABCD"');
    const wrong = await relay('/signin', signInForm('not the secret', '/dashboard'));
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('Set-Cookie')).toBeNull();
  });

  it('signs in with the owner secret: a Secure, HttpOnly, SameSite=Lax __Host- cookie, then back to next', async () => {
    const res = await relay('/signin', signInForm(SECRET, '/pair?code=ABCD'));
    expect(res.status).toBe(303);
    expect(res.headers.get('Location')).toBe('/pair?code=ABCD');
    const cookie = res.headers.get('Set-Cookie') ?? '';
    expect(cookie.startsWith(`${SESSION_COOKIE}=`)).toBe(true);
    expect(cookie).toMatch(/; Path=\/; Secure; HttpOnly; SameSite=Lax; Max-Age=43200$/);
    expect(await readSession(withCookie(cookie), SECRET, Date.now())).not.toBeNull();
    // Signed in already: the form sends the browser on.
    const again = await relay('/signin?next=%2Fdashboard', { headers: { Cookie: cookie.split(';')[0] ?? '' }, redirect: 'manual' });
    expect(again.status).toBe(303);
  });

  it('takes only a urlencoded form, and none above the cap however it is sent', async () => {
    const json = await relay('/signin', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ secret: SECRET }) });
    expect(json.status).toBe(415);
    expect(json.headers.get('Set-Cookie')).toBeNull();
    // A streamed body carries no Content-Length: the cap is counted as it arrives.
    const big = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`secret=${encodeURIComponent(SECRET)}&pad=${'x'.repeat(MAX_FORM_BYTES)}`));
        controller.close();
      },
    });
    const capped = await relay('/signin', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: big, duplex: 'half' } as RequestInit);
    expect(capped.status).toBe(413);
    expect(capped.headers.get('Set-Cookie')).toBeNull();
  });

  it('never redirects off this origin', async () => {
    for (const next of ['//evil.example/x', '/\\evil.example', 'https://evil.example/', 'javascript:alert(1)', '/ok\nSet-Cookie: x']) {
      const res = await relay('/signin', signInForm(SECRET, next));
      expect(res.headers.get('Location')).toBe('/dashboard');
    }
    expect(localPath('/pair?code=1')).toBe('/pair?code=1');
  });

  it('sign-out clears the cookie', async () => {
    const res = await relay('/signout', { method: 'POST', redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('Set-Cookie')).toMatch(/^__Host-vimrelay-session=; .*Max-Age=0$/);
  });
});

describe('session cookie', () => {
  it('is refused when tampered with, expired, signed with another secret, or malformed', async () => {
    const now = Date.now();
    const { setCookie } = await startSession(SECRET, now);
    const value = cookieValue(setCookie.split(';')[0] ?? null, SESSION_COOKIE) ?? '';
    const [expiry, id, tag] = value.split('.') as [string, string, string];
    const forged = (v: string) => new Request(`${BASE}/`, { headers: { Cookie: `${SESSION_COOKIE}=${v}` } });
    expect(await readSession(forged(value), SECRET, now)).toMatchObject({ id, expiresAtMs: now + SESSION_TTL_MS });
    expect(await readSession(forged(`${Number(expiry) + 1000}.${id}.${tag}`), SECRET, now)).toBeNull();
    expect(await readSession(forged(`${expiry}.${id}x.${tag}`), SECRET, now)).toBeNull();
    expect(await readSession(forged(value), SECRET, now + SESSION_TTL_MS)).toBeNull();
    expect(await readSession(forged(value), 'another secret', now)).toBeNull();
    expect(await readSession(forged(value), '', now)).toBeNull();
    for (const bad of ['', 'a.b', 'a.b.c.d', `${expiry}.${id}.!!!`]) expect(await readSession(forged(bad), SECRET, now)).toBeNull();
  });

  it('binds CSRF tokens to the session', async () => {
    const a = (await startSession(SECRET, Date.now())).session;
    const b = (await startSession(SECRET, Date.now())).session;
    const token = await csrfToken(SECRET, a);
    expect(await csrfValid(SECRET, a, token)).toBe(true);
    expect(await csrfValid(SECRET, b, token)).toBe(false);
    expect(await csrfValid(SECRET, a, undefined)).toBe(false);
    expect(await csrfValid(SECRET, a, `${token.slice(0, -1)}A`)).toBe(token.endsWith('A'));
  });
});
