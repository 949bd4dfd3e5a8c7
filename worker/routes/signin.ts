/**
 * Signing the owner in and out of the relay's pages with OWNER_SECRET.
 *
 *   GET  /signin?next=/path   the form (already signed in: straight to `next`)
 *   POST /signin              {secret, next} -> 303 to `next` with the session cookie | 401 page
 *                             | 429 page with Retry-After after too many wrong secrets
 *   POST /signout             {csrf} ends this session on the server and in this browser -> 303 /signin
 *   POST /signout/everywhere  {csrf} ends every session of the owner, in every browser -> 303 /signin
 *
 * `next` is only ever a path on this origin (`localPath`), so this is no open redirect. Sign-out
 * forms carry the session's CSRF token (403 without it, the session untouched); without a live
 * session there is nothing to end and the cookie is just cleared.
 */
import { Hono } from 'hono';
import { checkOwnerSecret } from '../auth/owner-check.ts';
import { beginOwnerSession, currentSession, endEveryOwnerSession, endOwnerSession } from '../auth/owner-session.ts';
import { csrfToken, csrfValid, endSessionCookie, localPath } from '../auth/session.ts';
import { csrfRefused, notConfigured, readForm } from '../http/session-guard.ts';
import type { Env } from '../env.ts';
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
  if (await currentSession(c.env, c.req.raw, secret, Date.now())) return c.redirect(next, 303);
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
  const setCookie = await beginOwnerSession(c.env, secret, Date.now());
  return new Response(null, { status: 303, headers: { Location: next, 'Set-Cookie': setCookie, 'Cache-Control': 'no-store' } });
});

const signedOut = (): Response => new Response(null, { status: 303, headers: { Location: '/signin', 'Set-Cookie': endSessionCookie(), 'Cache-Control': 'no-store' } });

/** A sign-out form: ends this session (or, `everywhere`, every session) once its CSRF token checks. */
async function signOut(env: Env, request: Request, everywhere: boolean): Promise<Response> {
  const secret = env.OWNER_SECRET;
  if (!secret) return notConfigured();
  const session = await currentSession(env, request, secret, Date.now());
  if (!session) return signedOut();
  const form = await readForm(request);
  if (form instanceof Response) return form;
  if (!(await csrfValid(secret, session, form.get('csrf')))) return csrfRefused(await csrfToken(secret, session));
  if (everywhere) await endEveryOwnerSession(env);
  else await endOwnerSession(env, session);
  return signedOut();
}

signin.post('/signout', (c) => signOut(c.env, c.req.raw, false));
signin.post('/signout/everywhere', (c) => signOut(c.env, c.req.raw, true));
