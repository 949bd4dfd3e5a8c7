/**
 * The client address a request came from, as a rate-limit bucket name. Cloudflare sets
 * `CF-Connecting-IP` to the connecting client's address on every request and overwrites any value
 * the client sent; local workerd (Miniflare, under `npm start` or `wrangler dev`) sets it to the
 * socket's address when the client sent none (a local client can forge it there, which is why
 * every per-address limit has an account-wide one beside it). A request without it (a test
 * calling the Worker directly) shares one bucket, UNKNOWN_CLIENT.
 *
 * IPv6 clients are bucketed by their /64: one subscriber routinely holds a whole /64 (RFC 6177
 * §3), so a per-address limit on the full 128 bits would give each of them 2^64 tries.
 */

/** The bucket of requests that name no client address. */
export const UNKNOWN_CLIENT = 'unknown';

/** The bucket name of the request's client address: an IPv4 address, an IPv6 /64 prefix, or UNKNOWN_CLIENT. */
export function clientAddress(request: Request): string {
  const raw = request.headers.get('CF-Connecting-IP')?.trim().toLowerCase() ?? '';
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(raw)) return raw;
  if (/^[0-9a-f:.]+$/.test(raw) && raw.includes(':')) return `${ipv6Prefix64(raw)}::/64`;
  return UNKNOWN_CLIENT;
}

/** The first four 16-bit groups of an IPv6 address in text form (RFC 4291 §2.2), `::` expanded. */
function ipv6Prefix64(address: string): string {
  const [head = '', tail] = address.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = Math.max(0, 8 - headGroups.length - tailGroups.length);
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(missing).fill('0'), ...tailGroups];
  return groups
    .slice(0, 4)
    .map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? g.replace(/^0+(?=.)/, '') : '0'))
    .join(':');
}

/**
 * The request's client address as a person reads it (the whole address, IPv6 too), for what the
 * owner is shown; UNKNOWN_CLIENT when the request names none that looks like an address.
 */
export function shownAddress(request: Request): string {
  const raw = request.headers.get('CF-Connecting-IP')?.trim().toLowerCase() ?? '';
  return /^[0-9a-f:.]{2,45}$/.test(raw) && /^[\d.]+$|:/.test(raw) ? raw : UNKNOWN_CLIENT;
}
