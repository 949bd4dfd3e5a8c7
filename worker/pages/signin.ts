/**
 * The sign-in pages: the owner-secret form (`/signin`, the relay's session cookie), the
 * throttled-guesses page, and the local relay's HTTP Basic pages (`auth/basic-owner.ts`): the
 * challenge, which is the page a browser shows when its prompt is cancelled, and what signing out is there.
 */
import { BASIC_CHALLENGE } from '../auth/basic-owner.ts';
import { html } from './html.ts';
import { page } from './layout.ts';

export function signInPage(next: string, failed: 'wrong' | null): Response {
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
export function limitedPage(next: string, retryAfterS: number): Response {
  return page({
    title: 'Too many attempts',
    status: 429,
    headers: new Headers({ 'Retry-After': String(retryAfterS) }),
    body: html`<h1>Too many attempts</h1>
<p class="bad" role="alert">Too many wrong owner secrets were tried. Sign-in is paused for ${retryAfterS} seconds; try again then.</p>
<p><a href="/signin?next=${encodeURIComponent(next)}">Back to sign-in</a></p>`,
  });
}

const basicHowTo = html`<p>Your browser asks for a user name and a password: the user name <code>npm start</code>
printed (<code>OWNER_USER</code> in <code>.dev.vars</code>, where it ran), and this relay's owner secret
(<code>OWNER_SECRET</code> there) as the password. Any other user name works too, but shares its limit of wrong
secrets with everyone on this machine. Reload this page to be asked again.</p>`;

/** 401 with the Basic challenge: the browser asks for the secret, and shows this page if its prompt is cancelled. */
export function basicChallengePage(failed: 'wrong' | null): Response {
  return page({
    title: 'Sign in',
    status: 401,
    headers: new Headers({ 'WWW-Authenticate': BASIC_CHALLENGE }),
    body: html`<h1>Sign in</h1>
${failed ? html`<p class="bad" role="alert">That is not the owner secret.</p>` : ''}
${basicHowTo}`,
  });
}

/**
 * What signing out means where the owner signs in with HTTP Basic: a browser keeps the secret it
 * was given until it quits (no header makes it forget reliably), and every browser holds the
 * secret itself, so only a new secret signs them all out.
 */
export function basicSignOutPage(): Response {
  return page({
    title: 'Signing out',
    body: html`<h1>Signing out of this relay</h1>
<p>Browsers sign in here with the owner secret itself and keep it until they quit: to sign this browser out, quit it.</p>
<p>To sign every browser out, change <code>OWNER_SECRET</code> in <code>.dev.vars</code> and restart <code>npm start</code>.</p>
<p><a href="/dashboard">Back to the dashboard</a></p>`,
  });
}
