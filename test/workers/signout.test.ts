// Sign-out ends the session on the server: a copy of the cookie (stolen before the owner signed
// out) stops working at once, on every page behind the session; sign-out forms carry the session's
// CSRF token (a cross-site sign-out is 403 and ends nothing); "sign out everywhere" ends every
// browser's session. Against the real Worker and its Hub in workerd.
import { describe, expect, it } from 'vitest';
import { ownerSession, relay } from './helpers.ts';


const signIn = (): Promise<string> => ownerSession();

/** GET `path` with `cookie`: the status and the page's CSRF token (empty when signed out). */
async function visit(path: string, cookie: string): Promise<{ status: number; csrf: string; body: string }> {
  const res = await relay(path, { headers: { Cookie: cookie }, redirect: 'manual' });
  const body = await res.text();
  return { status: res.status, csrf: /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '', body };
}

function post(path: string, cookie: string, fields: Record<string, string>): Promise<Response> {
  return relay(path, { method: 'POST', headers: { Cookie: cookie }, body: new URLSearchParams(fields), redirect: 'manual' });
}

describe('sign-out', () => {
  it('ends the session on the server: a stolen copy of the cookie is refused everywhere afterwards', async () => {
    const cookie = await signIn();
    const stolen = cookie; // what an attacker copied before the owner signed out
    const { status, csrf } = await visit('/dashboard', cookie);
    expect(status).toBe(200);
    expect((await visit('/pair', stolen)).status).toBe(200);
    const out = await post('/signout', cookie, { csrf });
    expect(out.status).toBe(303);
    expect(out.headers.get('Location')).toBe('/signin');
    expect(out.headers.get('Set-Cookie')).toMatch(/^__Host-vimrelay-session=; .*Max-Age=0$/);
    for (const path of ['/dashboard', '/pair', '/dashboard/tokens/new']) {
      const res = await relay(path, { headers: { Cookie: stolen }, redirect: 'manual' });
      expect(res.status, path).toBe(303);
      expect(res.headers.get('Location')).toMatch(/^\/signin\?next=/);
    }
    // A form posted with the dead cookie and its old CSRF token does nothing either.
    const late = await post('/dashboard/tokens', stolen, { csrf, name: 'after-sign-out', scope: 'read', days: '1' });
    expect(late.status).toBe(303);
    expect(late.headers.get('Location')).toMatch(/^\/signin/);
    // The sign-in form no longer sends that cookie on as signed in.
    expect((await visit('/signin', stolen)).status).toBe(200);
  });

  it('without this session\'s CSRF token is 403 and leaves the session live (no cross-site sign-out)', async () => {
    const cookie = await signIn();
    const other = await signIn();
    const otherCsrf = (await visit('/dashboard', other)).csrf;
    const attempts: Record<string, string>[] = [{}, { csrf: otherCsrf }, { csrf: 'x'.repeat(43) }];
    for (const fields of attempts) {
      const res = await post('/signout', cookie, fields);
      expect(res.status).toBe(403);
      expect(res.headers.get('Set-Cookie')).toBeNull();
      const everywhere = await post('/signout/everywhere', cookie, fields);
      expect(everywhere.status).toBe(403);
    }
    expect((await visit('/dashboard', cookie)).status).toBe(200);
    expect((await visit('/dashboard', other)).status).toBe(200);
  });

  it('the page header carries the sign-out form with the CSRF token, and the dashboard offers sign out everywhere', async () => {
    const cookie = await signIn();
    const { body, csrf } = await visit('/dashboard', cookie);
    expect(body).toContain(`<form class="inline" method="post" action="/signout"><input type="hidden" name="csrf" value="${csrf}">`);
    expect(body).toMatch(/action="\/signout\/everywhere"><input type="hidden" name="csrf" value="[^"]+">/);
    expect(body).toContain('Sign out everywhere');
  });
});

describe('sign out everywhere', () => {
  it('ends every browser\'s session, the one that asked included', async () => {
    const a = await signIn();
    const b = await signIn();
    const c = await signIn();
    const { csrf } = await visit('/dashboard', a);
    const res = await post('/signout/everywhere', a, { csrf });
    expect(res.status).toBe(303);
    expect(res.headers.get('Location')).toBe('/signin');
    for (const cookie of [a, b, c]) expect((await visit('/dashboard', cookie)).status).toBe(303);
    // Signing in again works.
    expect((await visit('/dashboard', await signIn())).status).toBe(200);
  });
});
