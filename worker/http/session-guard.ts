/**
 * Guards for the owner's pages. `requireSession` lets a request through with its verified, live
 * session (in `c.var.session`, its CSRF token in `c.var.csrf`) or sends the browser to sign in and
 * come back; `checkedForm` reads a posted form and refuses it unless it carries the session's CSRF
 * token (`auth/session.ts`).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { readCapped } from './body.ts';
import { currentSession } from '../auth/owner-session.ts';
import { csrfToken, csrfValid, type Session } from '../auth/session.ts';
import { html } from '../pages/html.ts';
import { page } from '../pages/layout.ts';
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

/** Lets a signed-in owner through; else redirects to `/signin?next=<this path>` (303). */
export const requireSession: MiddlewareHandler<SessionEnv> = async (c, next) => {
  const secret = c.env.OWNER_SECRET;
  if (!secret) return notConfigured();
  const session = await currentSession(c.env, c.req.raw, secret, Date.now());
  if (!session) {
    const url = new URL(c.req.url);
    return c.redirect(`/signin?next=${encodeURIComponent(url.pathname + url.search)}`, 303);
  }
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
