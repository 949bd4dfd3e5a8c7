/**
 * Every request this Worker sends out. The relay fetches nothing of its own: its only outbound
 * requests are the Client ID Metadata Documents the OAuth library fetches for URL client ids. The
 * library calls the global `fetch` and takes no fetch of ours, so `installEgressGuard` wraps the
 * global one, once, at start-up, with the policy of `auth/cimd-policy.ts`:
 *
 *   - https only, to a DNS name that is not an IP literal or a local-use name;
 *   - the name resolved first (DNS over HTTPS, RFC 8484's JSON form at Cloudflare's resolver),
 *     and refused unless it has addresses and every one is public;
 *   - redirects are never followed: a 3xx comes back as it is, and the library refuses it (CIMD:
 *     the document is the `client_id` URL itself; MCP 2026-07-28 security best practices,
 *     "Validate Redirect Targets").
 *
 * A refused request throws before anything leaves, as a network failure would, and is logged with
 * its host and why (never its path or query).
 */
import { cimdUrlRefusal, publicAddress } from '../auth/cimd-policy.ts';

/** The resolver the guard asks (DNS over HTTPS, JSON answers). */
const DOH_RESOLVER = 'https://cloudflare-dns.com/dns-query';

/** Bound on one resolution. */
const RESOLVE_TIMEOUT_MS = 3_000;

/** A request the egress policy refused; nothing was sent. */
class EgressRefused extends TypeError {
  constructor(host: string, reason: string) {
    super(`outbound request to ${host} refused: ${reason}`);
    this.name = 'EgressRefused';
  }
}

type Fetch = typeof fetch;

/** The A and AAAA addresses of `host`, through `send` (the unguarded fetch); empty when it has none or DNS failed. */
async function resolveHost(host: string, send: Fetch): Promise<string[]> {
  const ask = async (type: 'A' | 'AAAA'): Promise<string[]> => {
    const url = `${DOH_RESOLVER}?name=${encodeURIComponent(host)}&type=${type}`;
    const res = await send(url, { headers: { Accept: 'application/dns-json' }, signal: AbortSignal.timeout(RESOLVE_TIMEOUT_MS) });
    if (!res.ok) return [];
    const body = (await res.json()) as { Status?: number; Answer?: { type?: number; data?: unknown }[] };
    if (body.Status !== 0) return [];
    // RFC 1035 §3.2.2 type 1 is A; RFC 3596 §2.1 type 28 is AAAA (CNAMEs in between are skipped).
    return (body.Answer ?? []).filter((a) => (a.type === 1 || a.type === 28) && typeof a.data === 'string').map((a) => a.data as string);
  };
  try {
    const [v4, v6] = await Promise.all([ask('A'), ask('AAAA')]);
    return [...v4, ...v6];
  } catch {
    return [];
  }
}

/** Why the guard refuses `url` (resolving its host through `send`), or null when it may be fetched. */
async function egressRefusal(url: URL, send: Fetch): Promise<string | null> {
  const byName = cimdUrlRefusal(url);
  if (byName) return byName;
  const addresses = await resolveHost(url.hostname, send);
  if (addresses.length === 0) return 'its name does not resolve';
  const blocked = addresses.find((a) => !publicAddress(a));
  return blocked === undefined ? null : `its name resolves to ${blocked}, which is not a public address`;
}

/** `next` behind the egress policy: refused requests throw EgressRefused, the rest go out without following redirects. */
function guardedFetch(next: Fetch): Fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const refused = await egressRefusal(url, next);
    if (refused !== null) {
      console.warn(`vimrelay: outbound request to ${url.host} refused: ${refused}`);
      throw new EgressRefused(url.host, refused);
    }
    return next(new Request(request, { redirect: 'manual' }));
  };
}

let installed = false;

/** Puts the egress policy in front of the global `fetch` (idempotent). */
export function installEgressGuard(): void {
  if (installed) return;
  installed = true;
  globalThis.fetch = guardedFetch(globalThis.fetch.bind(globalThis));
}
