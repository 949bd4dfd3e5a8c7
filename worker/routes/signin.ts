/**
 * Signing the owner in and out of the relay's pages with OWNER_SECRET.
 *
 *   GET  /signin?next=/path   the form (already signed in: straight to `next`)
 *   POST /signin              {secret, next} -> 303 to `next` with the session cookie | 401 page
 *                             | 429 page with Retry-After after too many wrong secrets
 *   POST /signout             ends the session in this browser -> 303 /signin
 *
 * `next` is only ever a path on this origin (`localPath`), so this is no open redirect.
 */
import { Hono } from 'hono';
import { checkOwnerSecret } from '../auth/owner-check.ts';
import { endSessionCookie, localPath, readSession, startSession } from '../auth/session.ts';
import { notConfigured, readForm } from '../http/session-guard.ts';
import { html } from '../pages/html.ts';
import { page } from '../pages/layout.ts';
import type { AppEnv } from './types.ts';

function signInPage(next: string, failed: 'wrong' | null): Response {
  return page({
    title: 'Sign in',
    status: failed ? 401 : 200,
    body: html`<h1>Sign in</h1>
<p class="muted">Enter this relay's owner secret (<code>OWNER_SECRET</code>; with <code>npm start</code> it is in <code>.dev.vars</code>).</p>
${failed ? html`<p class="bad" role="alert">That is not the owner secret.</p>` : ''}
<form method="post" action="/signin">
<input type="hidden" name="next" value="${next}">
<label>Owner secret <input type="password" name="secret" autocomplete="current-password" required autofocus></label>
<p><button class="primary" type="submit">Sign in</button></p>
</form>`,
  });
}

/** Too many wrong secrets: nothing is compared until the window ends (`hub/owner-guesses.ts`). */
function limitedPage(next: string, retryAfterS: number): Response {
  return page({
    title: 'Too many attempts',
    status: 429,
    headers: new Headers({ 'Retry-After': String(retryAfterS) }),
    body: html`<h1>Too many attempts</h1>
<p class="bad" role="alert">Too many wrong owner secrets were tried. Sign-in is paused for ${retryAfterS} seconds; try again then.</p>
<p><a href="/signin?next=${encodeURIComponent(next)}">Back to sign-in</a></p>`,
  });
}

export const signin = new Hono<AppEnv>();

signin.get('/signin', async (c) => {
  const secret = c.env.OWNER_SECRET;
  if (!secret) return notConfigured();
  const next = localPath(c.req.query('next'));
  if (await readSession(c.req.raw, secret, Date.now())) return c.redirect(next, 303);
  return signInPage(next, null);
});

signin.post('/signin', async (c) => {
  const secret = c.env.OWNER_SECRET;
  if (!secret) return notConfigured();
  const form = await readForm(c.req.raw);
  if (form instanceof Response) return form;
  const next = localPath(form.get('next'));
  const presented = form.get('secret');
  if (typeof presented !== 'string' || presented === '') return signInPage(next, 'wrong');
  const verdict = await checkOwnerSecret(c.env, c.req.raw, presented, secret);
  if (!verdict.ok && verdict.limited) return limitedPage(next, verdict.retryAfterS);
  if (!verdict.ok) return signInPage(next, 'wrong');
  const { setCookie } = await startSession(secret, Date.now());
  return new Response(null, { status: 303, headers: { Location: next, 'Set-Cookie': setCookie, 'Cache-Control': 'no-store' } });
});

signin.post('/signout', () => new Response(null, { status: 303, headers: { Location: '/signin', 'Set-Cookie': endSessionCookie(), 'Cache-Control': 'no-store' } }));
