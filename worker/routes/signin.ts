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
 * session there is nothing to end and the cookie is just cleared. The local relay signs in with
 * HTTP Basic instead (`basicSignIn` below).
 */
import { Hono } from 'hono';
import { checkOwnerSecret } from '../auth/owner-check.ts';
import { beginOwnerSession, currentSession, endEveryOwnerSession, endOwnerSession } from '../auth/owner-session.ts';
import { csrfToken, csrfValid, endSessionCookie, localPath } from '../auth/session.ts';
import { csrfRefused, notConfigured, ownerSession, readForm, signsInWithBasic } from '../http/session-guard.ts';
import type { Env } from '../env.ts';
import { basicSignOutPage, limitedPage, signInPage } from '../pages/signin.ts';
import type { AppEnv } from './types.ts';

/**
 * The local relay signs in with HTTP Basic (auth/basic-owner.ts): there `GET /signin` is the
 * challenge, `POST /signin` goes back to it (no cookie is ever set), and the sign-out forms, CSRF
 * checked as here, answer what signing out is there (`basicSignOutPage`).
 */
async function basicSignIn(env: Env, request: Request, secret: string, next: string): Promise<Response> {
  const session = await ownerSession(env, request, secret);
  return session instanceof Response ? session : new Response(null, { status: 303, headers: { Location: next } });
}

export const signin = new Hono<AppEnv>();

signin.get('/signin', async (c) => {
  const secret = c.env.OWNER_SECRET;
  if (!secret) return notConfigured();
  const next = localPath(c.req.query('next'));
  if (signsInWithBasic(c.env)) return basicSignIn(c.env, c.req.raw, secret, next);
  if (await currentSession(c.env, c.req.raw, secret, Date.now())) return c.redirect(next, 303);
  return signInPage(next, null);
});

signin.post('/signin', async (c) => {
  const secret = c.env.OWNER_SECRET;
  if (!secret) return notConfigured();
  if (signsInWithBasic(c.env)) return new Response(null, { status: 303, headers: { Location: '/signin' } });
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
  const basic = signsInWithBasic(env);
  const found = basic ? await ownerSession(env, request, secret) : await currentSession(env, request, secret, Date.now());
  if (found instanceof Response) return found;
  if (!found) return signedOut();
  const session = found;
  const form = await readForm(request);
  if (form instanceof Response) return form;
  if (!(await csrfValid(secret, session, form.get('csrf')))) return csrfRefused(await csrfToken(secret, session));
  if (basic) return basicSignOutPage();
  if (everywhere) await endEveryOwnerSession(env);
  else await endOwnerSession(env, session);
  return signedOut();
}

signin.post('/signout', (c) => signOut(c.env, c.req.raw, false));
signin.post('/signout/everywhere', (c) => signOut(c.env, c.req.raw, true));
