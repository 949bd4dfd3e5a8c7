/**
 * Where a Client ID Metadata Document may be fetched from. A CIMD `client_id` is a URL chosen by
 * whoever starts an authorization, and the authorization server fetches it: without limits that is
 * a server-side request forgery anyone can aim (MCP 2026-07-28 security best practices, "SSRF
 * Against Authorization Servers"; draft-ietf-oauth-client-id-metadata-document, Security
 * Considerations, "Server Side Request Forgery (SSRF) Attacks"). Pure: takes URLs and addresses.
 *
 * A document is fetched only over https from a DNS name (never an IP literal, in any spelling: the
 * WHATWG URL parser turns `0x7f.1`, `2130706433` and `[::ffff:127.0.0.1]` into canonical
 * literals first), never from a name reserved for local use, and only when every address the name
 * resolves to is a public unicast address (`publicAddress`). `http/egress.ts` applies this to
 * every fetch the Worker makes, and follows no redirect.
 */

/** Whether the library would resolve `clientId` as a CIMD URL (https with a path), not a registered id. */
export function isCimdClientId(clientId: string): boolean {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && /^https:\/\/[^/?#]*\//i.test(clientId);
}

// RFC 6761 §6.3 (localhost), RFC 6762 (local), RFC 8375 (home.arpa), ICANN's reservation of
// `internal` for private use (2024), and the names routers and VPNs hand out.
const LOCAL_SUFFIXES = ['localhost', 'local', 'internal', 'home.arpa', 'lan', 'intranet', 'localdomain', 'corp', 'home'];

/** Why `url` may not be fetched by name alone; null when its resolved addresses decide. */
export function cimdUrlRefusal(url: URL): string | null {
  if (url.protocol !== 'https:') return 'it is not an https URL';
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (host.startsWith('[') || /^\d+\.\d+\.\d+\.\d+$/.test(host)) return 'its host is an IP address, not a DNS name';
  if (!host.includes('.')) return 'its host is a single-label name, which only a local network resolves';
  if (LOCAL_SUFFIXES.some((suffix) => host === suffix || host.endsWith(`.${suffix}`))) return 'its host is a name reserved for local networks';
  return null;
}

/** An IPv4 address's four octets, or null when `text` is not a dotted-quad address. */
function octets(text: string): [number, number, number, number] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return null;
  const parts = m.slice(1).map(Number) as [number, number, number, number];
  return parts.every((n) => n <= 255) ? parts : null;
}

/** Whether an IPv4 address is public unicast (IANA IPv4 Special-Purpose Address Registry, RFC 6890). */
function publicV4([a, b, c]: [number, number, number, number]): boolean {
  if (a === 0 || a === 10 || a === 127 || a >= 224) return false; // this network, RFC 1918, loopback, multicast and reserved
  if (a === 100 && b >= 64 && b <= 127) return false; // CGNAT, RFC 6598
  if (a === 169 && b === 254) return false; // link-local, RFC 3927 (cloud metadata services answer there)
  if (a === 172 && b >= 16 && b <= 31) return false; // RFC 1918
  if (a === 192 && b === 168) return false; // RFC 1918
  if (a === 192 && b === 0 && (c === 0 || c === 2)) return false; // IETF protocol assignments, TEST-NET-1
  if (a === 192 && b === 88 && c === 99) return false; // 6to4 relay anycast
  if (a === 198 && (b === 18 || b === 19)) return false; // benchmarking, RFC 2544
  if (a === 198 && b === 51 && c === 100) return false; // TEST-NET-2
  if (a === 203 && b === 0 && c === 113) return false; // TEST-NET-3
  return true;
}

/** The eight 16-bit groups of an IPv6 address in text form (RFC 4291 §2.2), or null. */
function groups(text: string): number[] | null {
  let address = text.toLowerCase();
  const tailV4 = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (tailV4) {
    const v4 = octets(tailV4[2] ?? '');
    if (!v4) return null;
    address = `${tailV4[1]}${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`;
  }
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parse(halves[0] ?? '');
  const tail = halves.length === 2 ? parse(halves[1] ?? '') : [];
  if (!head || !tail) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  return missing >= 1 ? [...head, ...Array<number>(missing).fill(0), ...tail] : null;
}

/**
 * Whether `address` (a resolved A or AAAA record) is a public unicast address. IPv6 must be
 * global unicast (2000::/3, RFC 4291 §2.4), which leaves out loopback, ULA (fc00::/7), link-local
 * (fe80::/10), multicast and IPv4-mapped addresses, and not documentation (2001:db8::/32,
 * 3fff::/20), 6to4 (2002::/16), Teredo and the other IETF assignments in 2001::/23; NAT64
 * (64:ff9b::/96) is judged by the IPv4 address inside it. Anything unparseable is not public.
 */
export function publicAddress(address: string): boolean {
  const v4 = octets(address);
  if (v4) return publicV4(v4);
  const g = groups(address.replace(/^\[|\]$/g, ''));
  if (!g) return false;
  const [g0 = 0, g1 = 0] = g;
  if (g0 === 0x64 && g1 === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    const [g6 = 0, g7 = 0] = g.slice(6);
    return publicV4([g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff]);
  }
  if ((g0 & 0xe000) !== 0x2000) return false;
  if (g0 === 0x2001 && g1 < 0x200) return false; // 2001::/23
  if (g0 === 0x2001 && g1 === 0xdb8) return false;
  if (g0 === 0x2002) return false;
  if (g0 === 0x3fff && g1 < 0x1000) return false; // 3fff::/20
  return true;
}
