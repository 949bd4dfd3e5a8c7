/**
 * The owner's side of an OAuth authorization, driven over HTTP as a browser would (no scripts on
 * these pages: forms post, the server redirects): sign in with the owner secret (the session
 * cookie; or, at the local relay, a fetcher that sends HTTP Basic with NO_COOKIE), open the
 * `/authorize` URL, read the consent form, post it. Runtime-neutral: takes the `fetch` to use, so
 * that workerd tests (the Worker's own fetch) and end-to-end tests (a relay in local workerd) share it.
 */

/** A fetch that does not follow redirects (the caller passes `redirect: 'manual'`). */
export type Fetcher = (url: string, init?: RequestInit) => Promise<Response>;

/** `name=value` of every Set-Cookie of `res` (the attributes dropped). */
export function setCookies(res: Response): string[] {
  const header = res.headers.get('Set-Cookie');
  if (!header) return [];
  // Joined with ", "; a comma inside an Expires date is never followed by `name=`.
  return header.split(/,\s*(?=[^;,\s]+=)/).map((c) => c.split(';')[0]?.trim() ?? '');
}

/** The session argument of a fetcher that proves the sign-in by itself (the local relay's HTTP Basic). */
export const NO_COOKIE = '';

/** Signs in at `base` with `secret`; the session cookie as `name=value`. */
export async function signIn(fetcher: Fetcher, base: string, secret: string): Promise<string> {
  const res = await fetcher(`${base}/signin`, { method: 'POST', body: new URLSearchParams({ secret, next: '/dashboard' }), redirect: 'manual' });
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  const cookie = setCookies(res)[0];
  if (!cookie) throw new Error('sign-in set no cookie');
  return cookie;
}

/** The consent page as the test reads it. */
export interface ConsentForm {
  response: Response;
  html: string;
  /** The library's handle (hidden field `handle`). */
  handle: string;
  /** The session's CSRF token (hidden field `csrf`). */
  csrf: string;
  /** The client's name as the page showed it (hidden field `shown_name`). */
  shownName: string;
  /** Cookies to send with the post: the session's and the consent binding. */
  cookies: string[];
}

const ENTITIES: Readonly<Record<string, string>> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** The value of hidden field `name`, as a browser posts it: the pages' escapes (worker/pages/html.ts) undone. */
function field(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!match?.[1]) throw new Error(`the consent page has no ${name} field`);
  return match[1].replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity] ?? entity);
}

/** Opens `authorizeUrl` signed in with `session` (or NO_COOKIE); fails unless it shows the consent page. */
export async function openConsent(fetcher: Fetcher, authorizeUrl: string, session: string): Promise<ConsentForm> {
  const response = await fetcher(authorizeUrl, { headers: session === NO_COOKIE ? {} : { Cookie: session }, redirect: 'manual' });
  const html = await response.text();
  if (response.status !== 200) throw new Error(`/authorize answered ${response.status}: ${html.slice(0, 300)}`);
  const sessionCookies = session === NO_COOKIE ? [] : [session];
  return { response, html, handle: field(html, 'handle'), csrf: field(html, 'csrf'), shownName: field(html, 'shown_name'), cookies: [...sessionCookies, ...setCookies(response)] };
}

/** The scopes the consent page has ticked, as a browser submits them untouched. */
export function tickedScopes(html: string): string[] {
  return [...html.matchAll(/name="scope" value="([a-z]+)" checked/g)].map((m) => m[1] ?? '');
}

/** Posts the consent form with `decision` and the ticked `scopes`; the raw (redirect) response. */
export function postConsent(
  fetcher: Fetcher,
  base: string,
  form: Pick<ConsentForm, 'handle' | 'csrf' | 'shownName' | 'cookies'>,
  decision: 'allow' | 'deny',
  scopes: readonly string[],
  omit: readonly ('csrf' | 'handle')[] = [],
): Promise<Response> {
  const body = new URLSearchParams();
  if (!omit.includes('csrf')) body.set('csrf', form.csrf);
  if (!omit.includes('handle')) body.set('handle', form.handle);
  body.set('shown_name', form.shownName);
  body.set('decision', decision);
  for (const scope of scopes) body.append('scope', scope);
  return fetcher(`${base}/authorize`, { method: 'POST', body, headers: { Cookie: form.cookies.join('; ') }, redirect: 'manual' });
}

/**
 * Signs in if needed, consents to `scopes` (or to what the page ticked, `'as ticked'`) and returns
 * the redirect back to the client (its Location).
 */
export async function approve(fetcher: Fetcher, base: string, authorizeUrl: string, session: string, scopes: readonly string[] | 'as ticked'): Promise<URL> {
  const form = await openConsent(fetcher, authorizeUrl, session);
  const res = await postConsent(fetcher, base, form, 'allow', scopes === 'as ticked' ? tickedScopes(form.html) : scopes);
  const location = res.headers.get('Location');
  if (res.status !== 303 || !location) throw new Error(`consent answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return new URL(location);
}
