/**
 * Guards for the owner's pages. `ownerSession` finds the request's owner: on a deployed relay the
 * session cookie (`auth/owner-session.ts`), on the local relay HTTP Basic (`auth/basic-owner.ts`,
 * which says why). `requireSession` lets a request through with it (in `c.var.session`, its CSRF
 * token in `c.var.csrf`) or answers what `ownerSession` does; `checkedForm` reads a posted form and
 * refuses it unless it carries the session's CSRF token (`auth/session.ts`).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { readCapped } from './body.ts';
import { basicOwner } from '../auth/basic-owner.ts';
import { currentSession } from '../auth/owner-session.ts';
import { csrfToken, csrfValid, secretSession, type Session } from '../auth/session.ts';
import type { Env } from '../env.ts';
import { html } from '../pages/html.ts';
import { page } from '../pages/layout.ts';
import { basicChallengePage, limitedPage } from '../pages/signin.ts';
import type { AppEnv } from '../routes/types.ts';

/** Hono environment of routes behind `requireSession`. */
export type SessionEnv = AppEnv & { Variables: { session: Session; csrf: string } };

/** Largest form the pages accept (bytes): they post a few short fields. */
export const MAX_FORM_BYTES = 16 * 1024;

/** 503 page when OWNER_SECRET is not set: nobody can sign in. */
export function notConfigured(): Response {
  return page({
    title: 'Not configured',
    status: 503,
    body: html`<h1>Sign-in is off</h1><p>This relay has no owner secret. Set <code>OWNER_SECRET</code> (<code>wrangler secret put OWNER_SECRET</code>) and reload.</p>`,
  });
}

/** Whether the owner signs in with HTTP Basic here (the local relay) rather than the session cookie. */
export function signsInWithBasic(env: Env): boolean {
  return env.LOCAL_RELAY !== undefined;
}

/**
 * The owner's session of `request` (`secret` is OWNER_SECRET, found set), or the answer to a
 * request without one: on a deployed relay 303 to `/signin?next=<this path>`; on the local relay
 * 401 with the Basic challenge (a wrong secret said so), or 429 while guesses are throttled.
 */
export async function ownerSession(env: Env, request: Request, secret: string): Promise<Session | Response> {
  const url = new URL(request.url);
  const here = url.pathname + url.search;
  if (!signsInWithBasic(env)) {
    const session = await currentSession(env, request, secret, Date.now());
    return session ?? new Response(null, { status: 303, headers: { Location: `/signin?next=${encodeURIComponent(here)}` } });
  }
  const verdict = await basicOwner(env, request, secret);
  if (verdict.ok) return secretSession(secret, Date.now());
  if (verdict.limited) return limitedPage(here, verdict.retryAfterS);
  return basicChallengePage('absent' in verdict ? null : 'wrong');
}

/** Lets a signed-in owner through; else answers as `ownerSession` does. */
export const requireSession: MiddlewareHandler<SessionEnv> = async (c, next) => {
  const secret = c.env.OWNER_SECRET;
  if (!secret) return notConfigured();
  const session = await ownerSession(c.env, c.req.raw, secret);
  if (session instanceof Response) return session;
  c.set('session', session);
  c.set('csrf', await csrfToken(secret, session));
  await next();
};

/** A 403 page for a form without a valid CSRF token; `csrf` is this session's, for the sign-out form. */
export function csrfRefused(csrf: string): Response {
  return page({
    title: 'Form expired',
    status: 403,
    csrf,
    body: html`<h1>This form has expired</h1><p>It was not sent from a page of this session. Go back, reload the page and try again.</p>`,
  });
}

/**
 * The posted form of a request behind `requireSession`, or a Response refusing it: 413 when too
 * large, 415 when not a form, 403 without this session's CSRF token (field `csrf`).
 */
export async function checkedForm(c: Context<SessionEnv>): Promise<URLSearchParams | Response> {
  const form = await readForm(c.req.raw);
  if (form instanceof Response) return form;
  if (!(await csrfValid(c.env.OWNER_SECRET ?? '', c.var.session, form.get('csrf')))) return csrfRefused(c.var.csrf);
  return form;
}

/**
 * A posted form (`application/x-www-form-urlencoded`, what the pages' forms send), read under
 * MAX_FORM_BYTES however the body arrives (http/body.ts); else a Response: 413 too large, 415 not
 * such a form.
 */
export async function readForm(request: Request): Promise<URLSearchParams | Response> {
  const type = request.headers.get('Content-Type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return new Response('Expected a form.', { status: 415 });
  const body = await readCapped(request, MAX_FORM_BYTES);
  return body.ok ? new URLSearchParams(body.text) : new Response('Form too large.', { status: 413 });
}
