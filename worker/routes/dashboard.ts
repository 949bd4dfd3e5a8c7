/**
 * The owner's dashboard, behind the owner's sign-in (`requireSession`: signed out, 303 to
 * /signin?next=..., or on the local relay the HTTP Basic challenge). Every POST is CSRF-checked (`checkedForm`) and answers 303 back to the
 * dashboard (Post/Redirect/Get), so that a reload never repeats an action.
 *
 *   GET  /dashboard                          devices, editors, OAuth grants, tokens, recent calls
 *   POST /dashboard/tokens                   {name, scope*, days} -> 303 /dashboard/tokens/new | 400 page
 *   GET  /dashboard/tokens/new               the new token, shown once (`auth/reveal.ts`) | 410
 *   POST /dashboard/tokens/:jti/revoke       -> 303 /dashboard#tokens | 404
 *   POST /dashboard/devices/:id/revoke       revokes the device, disconnecting it -> 303 | 404
 *   POST /dashboard/grants/revoke            {client} revokes every OAuth grant of that client -> 303 | 404
 *   GET|POST /dashboard/pending              the decisions waiting for the owner, answered here (dashboard-pending.ts)
 *
 * Reads and writes go through the Hub's RPC methods; this module holds no state.
 */
import { Hono, type Context } from 'hono';
import { ALL_SCOPES, deviceNameProblem, type PermissionClass } from '../../protocol/index.ts';
import { hubFor, OWNER_ACCOUNT } from '../account.ts';
import { clearRevealCookie, openReveal, REVEAL_COOKIE, revealCookie } from '../auth/reveal.ts';
import { cookieValue } from '../auth/session.ts';
import { mcpResource, revokePat } from '../auth/oauth.ts';
import { TOKEN_TTL } from '../auth/tokens.ts';
import { relayOrigin } from '../config.ts';
import { checkedForm, requireSession, signsInWithBasic, type SessionEnv } from '../http/session-guard.ts';
import { dashboardBody, type TokenFormValues } from '../pages/dashboard.ts';
import { tokenGoneBody, tokenShownOnceBody } from '../pages/dashboard-token.ts';
import { html } from '../pages/html.ts';
import { page } from '../pages/layout.ts';
import { clientNames, listGrants, revokeClient } from './dashboard-grants.ts';
import { answerPending, pendingPage } from './dashboard-pending.ts';

/** How many recent calls the dashboard shows (the Hub keeps more). */
export const DASHBOARD_CALLS = 50;

const DAY_S = 24 * 60 * 60;
const MAX_DAYS = TOKEN_TTL.max / DAY_S;

/** A valid token-creation form, or the message saying what is wrong with it. */
export type TokenRequest = { ok: true; name: string; scopes: PermissionClass[]; days: number } | { ok: false; message: string; values: TokenFormValues };

/**
 * Reads the token-creation form. Names follow the admin API's rule (protocol/names.ts; they become
 * `pat:<name>` client ids in the audit log): 1 to 64 characters, no control characters, no `/`.
 */
export function parseTokenForm(form: URLSearchParams): TokenRequest {
  const name = (form.get('name') ?? '').trim();
  const scopes = form.getAll('scope');
  const daysText = (form.get('days') ?? '').trim();
  const values: TokenFormValues = { name: name.slice(0, 200), scopes, days: daysText.slice(0, 10) };
  const refuse = (message: string): TokenRequest => ({ ok: false, message, values });

  const problem = deviceNameProblem(name);
  if (problem !== null) return refuse(`The token's name ${problem}.`);
  const known = new Set<string>(ALL_SCOPES);
  if (scopes.length === 0) return refuse('Choose at least one scope.');
  if (scopes.some((s) => !known.has(s))) return refuse('Unknown scope.');
  const days = /^[0-9]{1,3}$/.test(daysText) ? Number(daysText) : NaN;
  if (!Number.isInteger(days) || days < 1 || days > MAX_DAYS) return refuse(`The lifetime must be a whole number of days from 1 to ${MAX_DAYS}.`);
  return { ok: true, name, scopes: ALL_SCOPES.filter((s) => scopes.includes(s)), days };
}

function notFound(csrf: string, what: string): Response {
  return page({ title: 'Not found', status: 404, csrf, body: html`<h1>Not found</h1><p>No ${what} has this id.</p><p><a href="/dashboard">Back to the dashboard</a></p>` });
}

function backTo(fragment: string): Response {
  return new Response(null, { status: 303, headers: { Location: `/dashboard#${fragment}`, 'Cache-Control': 'no-store' } });
}

/** The whole dashboard page, with an optional refused token form. */
async function dashboardPage(c: Context<SessionEnv>, refused?: Extract<TokenRequest, { ok: false }>): Promise<Response> {
  const hub = hubFor(c.env);
  const csrf = c.var.csrf;
  const origin = relayOrigin(c.env, c.req.url);
  const [devices, editors, grants, tokens, calls] = await Promise.all([
    hub.listDevices(),
    hub.editorsOnline(),
    listGrants(c.env, origin),
    hub.listTokens(),
    hub.recentCalls(DASHBOARD_CALLS),
  ]);
  const names = await clientNames(c.env, origin, calls.map((call) => call.client), grants);
  return page({
    title: 'Dashboard',
    csrf,
    status: refused ? 400 : 200,
    body: dashboardBody({
      csrf,
      signIn: signsInWithBasic(c.env) ? 'basic' : 'cookie',
      nowMs: Date.now(),
      mcpUrl: mcpResource(origin),
      devices,
      editors,
      grants,
      tokens: tokens.filter((t) => t.kind === 'access'),
      calls,
      clientNames: names,
      ...(refused ? { tokenError: refused.message, tokenForm: refused.values } : {}),
    }),
  });
}

export const dashboard = new Hono<SessionEnv>();

dashboard.use('*', requireSession);

dashboard.get('/', (c) => dashboardPage(c));

dashboard.get('/pending', (c) => pendingPage(c));

dashboard.post('/pending', (c) => answerPending(c));

dashboard.post('/tokens', async (c) => {
  const form = await checkedForm(c);
  if (form instanceof Response) return form;
  const request = parseTokenForm(form);
  if (!request.ok) return dashboardPage(c, request);
  const minted = await hubFor(c.env).mintToken({
    kind: 'access',
    name: request.name,
    scopes: request.scopes,
    ttlSeconds: request.days * DAY_S,
    origin: relayOrigin(c.env, c.req.url),
    subject: OWNER_ACCOUNT,
  });
  const setCookie = await revealCookie(
    c.env.OWNER_SECRET ?? '',
    c.var.session,
    { token: minted.token, name: minted.name, scopes: minted.scopes, expires_at: minted.expires_at },
    Date.now(),
  );
  return new Response(null, { status: 303, headers: { Location: '/dashboard/tokens/new', 'Set-Cookie': setCookie, 'Cache-Control': 'no-store' } });
});

dashboard.get('/tokens/new', async (c) => {
  const reveal = await openReveal(c.env.OWNER_SECRET ?? '', c.var.session, cookieValue(c.req.header('Cookie') ?? null, REVEAL_COOKIE), Date.now());
  // Cleared whatever it held: the token is shown by this response or never.
  const headers = new Headers({ 'Set-Cookie': clearRevealCookie() });
  if (!reveal) return page({ title: 'Token', status: 410, csrf: c.var.csrf, headers, body: tokenGoneBody() });
  return page({ title: 'Token created', csrf: c.var.csrf, headers, body: tokenShownOnceBody(reveal) });
});

dashboard.post('/tokens/:jti/revoke', async (c) => {
  const form = await checkedForm(c);
  if (form instanceof Response) return form;
  const jti = c.req.param('jti');
  const hub = hubFor(c.env);
  const token = (await hub.listTokens()).find((t) => t.jti === jti && t.kind === 'access');
  if (!token) return notFound(c.var.csrf, 'personal access token');
  await revokePat(c.env, jti);
  return backTo('tokens');
});

dashboard.post('/devices/:id/revoke', async (c) => {
  const form = await checkedForm(c);
  if (form instanceof Response) return form;
  // The Hub closes the device's live sockets at once (Hub.revokeDevice).
  const revoked = await hubFor(c.env).revokeDevice(c.req.param('id'));
  if (!revoked) return notFound(c.var.csrf, 'device');
  return backTo('devices');
});

dashboard.post('/grants/revoke', async (c) => {
  const form = await checkedForm(c);
  if (form instanceof Response) return form;
  const client = form.get('client');
  if (typeof client !== 'string' || (await revokeClient(c.env, relayOrigin(c.env, c.req.url), client)) === 0) return notFound(c.var.csrf, 'OAuth client with a grant');
  return backTo('grants');
});
