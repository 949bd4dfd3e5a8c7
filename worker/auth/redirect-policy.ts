/**
 * Which OAuth redirect URIs this relay hands authorization codes to. Pure: takes the URI and the
 * operator's extra list, returns a verdict. Applied when a client registers (RFC 7591 §2, through
 * the library's `clientRegistrationCallback`) and again at `/authorize` for every client, Client
 * ID Metadata Document clients included (their redirect URIs come from their own documents, never
 * through registration).
 *
 * Accepted:
 *   - the hosted assistants' callbacks (`HOSTED_CALLBACKS`), ChatGPT's per-connector one as a
 *     pattern of exactly one path segment;
 *   - loopback redirect URIs for local clients (RFC 8252 §7.3; OAuth 2.1 §8.4.2 also names
 *     `localhost`): http or https, host `127.0.0.0/8`, `[::1]` or `localhost`, any port;
 *   - the exact URIs of the optional `REDIRECT_URIS` variable.
 * Matching a request's redirect URI against the client's registered ones stays exact (the
 * library's job, OAuth 2.1 §4.1.1); this module only decides which URIs may be registered at all.
 */

/** The hosted assistants' OAuth callbacks, exact. */
export const HOSTED_CALLBACKS: readonly string[] = [
  'https://claude.ai/api/mcp/auth_callback',
  'https://claude.com/api/mcp/auth_callback',
  'https://chatgpt.com/connector_platform_oauth_redirect',
];

// ChatGPT's developer-mode connectors: https://chatgpt.com/connector/oauth/{id}, one path segment.
const CHATGPT_CONNECTOR = /^https:\/\/chatgpt\.com\/connector\/oauth\/[A-Za-z0-9_-]+$/;

export type RedirectVerdict = { ok: true } | { ok: false; reason: string };

/** Whether `host` (as `URL.hostname` gives it) is a loopback host (RFC 8252 §7.3, §8.3). */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host === '[::1]') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** `REDIRECT_URIS` (comma-separated) as a list of exact URIs; blanks dropped. */
export function configuredRedirectUris(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** Whether the relay may send an authorization code to `uri`. */
export function redirectAllowed(uri: string, extra: readonly string[]): RedirectVerdict {
  if (HOSTED_CALLBACKS.includes(uri) || CHATGPT_CONNECTOR.test(uri) || extra.includes(uri)) return { ok: true };
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return { ok: false, reason: 'is not an absolute URL' };
  }
  // RFC 6749 §3.1.2: no fragment. RFC 9700 §4.1.3 (and the library) refuse userinfo too.
  if (url.hash !== '' || url.username !== '' || url.password !== '') return { ok: false, reason: 'carries a fragment or user information' };
  if ((url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname)) return { ok: true };
  return {
    ok: false,
    reason: 'is not a hosted assistant callback, a loopback address or listed in REDIRECT_URIS',
  };
}

/** The first refused URI among `uris` with why, or null when every one is allowed. */
export function firstRefused(uris: readonly string[], extra: readonly string[]): { uri: string; reason: string } | null {
  for (const uri of uris) {
    const verdict = redirectAllowed(uri, extra);
    if (!verdict.ok) return { uri, reason: verdict.reason };
  }
  return null;
}
