/**
 * The OAuth consent page and its error page (MCP authorization spec 2025-11-25 and its security
 * best practices, "Consent"): who is asking (the client's name, escaped, with its verified domain
 * for a Client ID Metadata Document client or "registered itself"), where the tokens go (the
 * redirect URI's host, with a warning for a loopback one), one checkbox per permission class with
 * what it allows, ticked as the client asked (every scope it requested, and `read`, which any
 * access needs; read and write when it asked for none: a step-up request for `exec` must not come
 * back without it), and Allow / Deny. The form carries the session's CSRF
 * token (`csrf`) and the library's single-use, browser-bound consent handle (`handle`).
 *
 * Renders only; routes/authorize.ts decides. Every string from the client goes through `html`.
 */
import type { ConsentDescription } from '@cloudflare/workers-oauth-provider';
import { ALL_SCOPES, type PermissionClass } from '../../protocol/index.ts';
import { BASELINE_SCOPES, OAUTH_PATHS, SESSION_SCOPES } from '../auth/oauth.ts';
import { html } from './html.ts';
import { page } from './layout.ts';

/** What each scope (permission class) lets a client do, in one line. */
export const SCOPE_TEXT: { readonly [S in PermissionClass]: string } = {
  read: 'Read buffers, editor state, diagnostics and search results, including unsaved text.',
  write: 'Change buffer text (left unsaved), move the cursor, add highlights and notes.',
  open: 'Open files from disk in an editor.',
  save: 'Write buffers to disk.',
  exec: 'Run Ex commands and send keystrokes: anything the editor can do, shell commands included.',
  terminal: 'Type into terminal buffers: run programs in their shells.',
};

/** Scopes ticked when the client asked for none it can have: an ordinary session's. */
export const DEFAULT_SCOPES: readonly PermissionClass[] = SESSION_SCOPES;

/**
 * The scopes ticked when the page opens for a request of `requested` (RFC 6749 §3.3: the scopes
 * the client asked for): every known one it asked for plus the baseline, else DEFAULT_SCOPES.
 */
function tickedScopes(requested: readonly string[]): Set<PermissionClass> {
  const asked = ALL_SCOPES.filter((s) => requested.includes(s));
  return new Set(asked.length > 0 ? [...BASELINE_SCOPES, ...asked] : DEFAULT_SCOPES);
}

/** What the consent page shows. */
export interface ConsentView {
  readonly details: ConsentDescription;
  /** The library's consent handle (beginConsent). */
  readonly handle: string;
  /** This session's CSRF token. */
  readonly csrf: string;
  /** Set-Cookie headers binding the handle to this browser. */
  readonly headers: Headers;
}

/** The consent page. */
export function consentPage(view: ConsentView): Response {
  const { details } = view;
  const requested = new Set(details.scope);
  const ticked = tickedScopes(details.scope);
  const who = details.clientDomain
    ? html`<p>Published by <strong>${details.clientDomain}</strong> (its client ID is a document on that domain).</p>`
    : html`<p class="muted">This app registered itself: its name is not verified.</p>`;
  const loopback = details.redirectIsLoopback
    ? html`<p class="warn" role="alert"><strong>Access goes to a program on this computer.</strong> Any local program could be listening there, whatever name it gives. Continue only if you just started connecting from it.</p>`
    : '';
  const boxes = ALL_SCOPES.map(
    (scope) =>
      html`<label><input type="checkbox" name="scope" value="${scope}"${ticked.has(scope) ? html` checked` : ''}> <strong>${scope}</strong>${requested.has(scope) ? html` <span class="muted">(requested)</span>` : ''}<br><span class="muted">${SCOPE_TEXT[scope]}</span></label>`,
  );
  let redirectOrigin: string[] = [];
  try {
    redirectOrigin = [new URL(details.redirectUri).origin];
  } catch {
    // A redirect URI without an origin never passes parseAuthRequest and the redirect policy.
  }
  return page({
    title: 'Allow access?',
    csrf: view.csrf,
    // Chromium applies form-action to the redirect that follows the post (CSP Level 3 §6.3.1.1).
    formActionOrigins: redirectOrigin,
    headers: view.headers,
    body: html`<h1>Allow <strong>${details.clientName}</strong> to use your editors?</h1>
<div class="box">
${who}
<p>Access will be sent to <strong>${details.redirectHost}</strong>.</p>
${loopback}
</div>
<form method="post" action="${OAUTH_PATHS.authorize}">
<input type="hidden" name="csrf" value="${view.csrf}">
<input type="hidden" name="handle" value="${view.handle}">
<input type="hidden" name="shown_name" value="${details.clientName}">
<fieldset>
<legend>It may</legend>
${boxes}
</fieldset>
<p><button class="primary" type="submit" name="decision" value="allow">Allow</button> <button type="submit" name="decision" value="deny">Deny</button></p>
</form>`,
  });
}

/** A local error page for an authorization that cannot go back to the client (or need not). */
export function authorizeErrorPage(status: number, title: string, message: string): Response {
  return page({
    title,
    status,
    body: html`<h1>${title}</h1><p>${message}</p><p class="muted">Start connecting again from the app.</p>`,
  });
}
