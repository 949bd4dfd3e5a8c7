/**
 * `/authorize`: the OAuth authorization endpoint's page (OAuth 2.1 §4.1; the library validates,
 * this route signs the owner in and asks for consent — see the library's consent-page guide).
 *
 *   GET  /authorize?…   signed in? else sign-in first (http/session-guard.ts) -> validate the request -> consent page
 *   POST /authorize     {csrf, handle, shown_name, decision, scope[]} -> 302 to the client with a
 *                       code (unless its name is no longer the one shown), or access_denied on Deny
 *
 * Errors: a request the library validated down to its redirect URI goes back to the client with
 * `error` (RFC 6749 §4.1.2.1); anything else — unknown client, unregistered redirect URI, a
 * client name the registration rule refuses, an expired or reused consent form — is rendered
 * here and never redirected.
 */
import { AuthorizationError, authorizationErrorRedirect, CimdFetchError, type AuthRequest } from '@cloudflare/workers-oauth-provider';
import { Hono } from 'hono';
import { ALL_SCOPES, type PermissionClass } from '../../protocol/index.ts';
import { OWNER_ACCOUNT } from '../account.ts';
import { clientNameRefusal, oauthHelpers, type McpProps } from '../auth/oauth.ts';
import { configuredRedirectUris, redirectAllowed } from '../auth/redirect-policy.ts';
import { csrfToken } from '../auth/session.ts';
import { relayOrigin } from '../config.ts';
import { checkedForm, notConfigured, ownerSession, requireSession, type SessionEnv } from '../http/session-guard.ts';
import { authorizeErrorPage, consentPage } from '../pages/consent.ts';

/**
 * A redirect that carries the consent helpers' cookies: 302 from GET, 303 from the consent POST,
 * so that the browser never re-posts the form to the client (RFC 9700 §4.12).
 */
function redirect(location: string, status: 302 | 303, headers: Headers = new Headers()): Response {
  const out = new Headers(headers);
  out.set('Location', location);
  out.set('Cache-Control', 'no-store');
  return new Response(null, { status, headers: out });
}

/** Answers a failure of the library's helpers as its consent-page guide's table says. */
function authorizeFailure(error: unknown): Response {
  if (error instanceof AuthorizationError && error.redirectTo) return redirect(error.redirectTo, 302);
  if (error instanceof AuthorizationError) return authorizeErrorPage(400, 'This request cannot be authorized', error.description);
  if (error instanceof CimdFetchError) return authorizeErrorPage(400, 'This app could not be verified', 'Its client metadata document could not be fetched or is not valid.');
  throw error; // a bug or an outage: the app's 500
}

/** Only the Set-Cookie headers of `headers` (the page sets its own security headers). */
function cookiesOf(headers: Headers): Headers {
  const out = new Headers();
  // Fetch standard: iterating Headers yields each Set-Cookie on its own.
  headers.forEach((value, name) => {
    if (name.toLowerCase() === 'set-cookie') out.append('Set-Cookie', value);
  });
  return out;
}

export const authorize = new Hono<SessionEnv>();

authorize.get('/authorize', async (c) => {
  const secret = c.env.OWNER_SECRET;
  if (!secret) return notConfigured();
  // Sign-in first, before anything of the request is looked at: parsing it looks the client up,
  // and for a Client ID Metadata Document client that is a fetch of the URL it names, which an
  // anonymous visitor must not be able to trigger (MCP 2026-07-28 security best practices, "SSRF
  // Against Authorization Servers").
  const session = await ownerSession(c.env, c.req.raw, secret);
  if (session instanceof Response) return session;
  const oauth = oauthHelpers(c.env, relayOrigin(c.env, c.req.url));
  let request: AuthRequest;
  try {
    request = await oauth.parseAuthRequest(c.req.raw);
  } catch (error) {
    return authorizeFailure(error);
  }
  // The registration policy again, for clients that never registered here (Client ID Metadata
  // Documents). Rendered, not redirected: the point is not to send anything to that URI.
  const verdict = redirectAllowed(request.redirectUri, configuredRedirectUris(c.env.REDIRECT_URIS));
  if (!verdict.ok) return authorizeErrorPage(400, 'This app cannot be authorized here', `Its redirect URI ${request.redirectUri} ${verdict.reason}.`);
  // OAuth 2.1 §4.1.1 and MCP 2025-11-25 "Authorization Code Protection": PKCE for every client;
  // the library requires it of public clients only.
  if (!request.codeChallenge) return redirect(authorizationErrorRedirect(request, 'invalid_request', 'PKCE (code_challenge, S256) is required.'), 302);

  try {
    const details = await oauth.describeConsent(request); // first: a failed lookup leaves nothing stored
    // The registration's name rule again (oauth.ts clientNameRefusal), for clients that never
    // registered here (Client ID Metadata Documents). Refused rather than cut short: the first
    // 100 characters of a name written to mislead would still be its publisher's words on this
    // page, and a publisher can fix its document.
    const nameRefused = clientNameRefusal(details.clientName);
    if (nameRefused !== null) return authorizeErrorPage(400, 'This app cannot be authorized here', `Its client metadata is refused: ${nameRefused}`);
    const consent = await oauth.beginConsent(request);
    return consentPage({ details, handle: consent.handle, csrf: await csrfToken(secret, session), headers: cookiesOf(consent.headers) });
  } catch (error) {
    return authorizeFailure(error);
  }
});

authorize.post('/authorize', requireSession, async (c) => {
  const form = await checkedForm(c);
  if (form instanceof Response) return form;
  const handle = form.get('handle');
  if (typeof handle !== 'string' || handle === '') return authorizeErrorPage(400, 'This form is incomplete', 'It carries no consent handle.');
  const oauth = oauthHelpers(c.env, relayOrigin(c.env, c.req.url));
  try {
    if (form.get('decision') !== 'allow') {
      const denied = await oauth.denyConsent(c.req.raw, handle);
      return redirect(denied.redirectTo, 303, denied.headers);
    }
    const known = new Set<string>(ALL_SCOPES);
    const scope = [...new Set(form.getAll('scope'))].filter((s): s is PermissionClass => known.has(s));
    if (scope.length === 0) return authorizeErrorPage(400, 'Nothing was allowed', 'Go back and tick at least one permission, or choose Deny.');
    const approved = await oauth.approveConsent(c.req.raw, handle, { scope });
    // The grant records the name the owner allowed. A Client ID Metadata Document is fetched again
    // here and may now say another name, or one the registration rule refuses: nothing is granted.
    const { clientName } = await oauth.describeConsent(approved.request);
    if (clientName !== form.get('shown_name') || clientNameRefusal(clientName) !== null) {
      return authorizeErrorPage(400, 'This app changed its name', 'It no longer calls itself what the consent page showed, so nothing was allowed.');
    }
    // The name rides with every token of the grant, so that the agent's prompts and audit log name
    // the client as this page did (worker/mcp/server.ts), without a lookup per call.
    const props: McpProps = { kind: 'oauth', grant: crypto.randomUUID(), clientName };
    const { redirectTo } = await oauth.completeAuthorization({
      request: approved.request, // from storage, not from the form
      userId: OWNER_ACCOUNT,
      scope: approved.request.scope,
      props,
      metadata: { clientName, created: new Date().toISOString() },
      // Several machines may connect the same assistant: a new grant does not end the others.
      revokeExistingGrants: false,
    });
    return redirect(redirectTo, 303, approved.headers);
  } catch (error) {
    return authorizeFailure(error);
  }
});
