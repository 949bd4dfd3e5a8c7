/**
 * Relay URLs as the user types them (`vimrelay pair <url>`, `--relay URL`): checked and brought to
 * the one spelling the credentials file keys its entries by. A URL typed without its scheme
 * (`localhost:8787`, `relay.example.com`) is refused with the URL it most likely meant: http:// for
 * a loopback host (a relay under `wrangler dev` or `npm start`), https:// for any other; the
 * relay's MCP endpoint (`…/mcp`, what the assistant is given) is refused with the relay's URL. A
 * relay on another machine is reached over https:// only, unless the user says `--insecure`
 * (`requireSecureRelay`): over plain http:// the device credential, tokens and the text of buffers
 * would cross the network readable and changeable by anyone on the way. Nothing here touches the
 * network.
 */

/** Host names and addresses that can only be this machine (RFC 6761 §6.3, RFC 1122 §3.2.1.3). */
function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(h) || h === '[::1]';
}

/**
 * `relay` (as normaliseRelayUrl gives it) when it is https://, or http:// to this machine, or
 * `insecure` is set; otherwise throws a message saying why and what to do.
 */
export function requireSecureRelay(relay: string, insecure: boolean): string {
  const u = new URL(relay);
  if (u.protocol !== 'http:' || isLoopbackHost(u.hostname) || insecure) return relay;
  throw new Error(
    `the relay URL ${relay} is plain http:// to another machine: the device credential, tokens and your buffers would cross the network unencrypted; ` +
      `use https://${u.host}${u.pathname.replace(/\/+$/, '')}, or add --insecure if you mean it (a relay on a network you trust)`,
  );
}

/** `typed` with the scheme it most likely lacks, if that makes it a URL. */
function withLikelyScheme(typed: string): string | undefined {
  // `http:/host` and the like have a scheme, misspelt: adding another would not help.
  if (/^https?:/i.test(typed)) return undefined;
  const authority = typed.split(/[/?#]/, 1)[0] ?? '';
  const host = authority.startsWith('[') ? authority.slice(0, authority.indexOf(']') + 1) : authority.split(':', 1)[0] ?? '';
  const url = `${isLoopbackHost(host) ? 'http' : 'https'}://${typed}`;
  return URL.canParse(url) ? relayOf(new URL(url)).relay : undefined;
}

/**
 * `u` as origin plus path without a trailing slash, and whether that path is the relay's MCP
 * endpoint (`/mcp` or a toolset's `/mcp/<set>`, worker/auth/toolset-endpoints.ts): the URL the
 * assistant is given, which a user may paste where the relay's own is asked for. `relay` is then
 * the relay's URL below it.
 */
function relayOf(u: URL): { relay: string; endpoint: boolean } {
  const path = u.pathname.replace(/\/+$/, '');
  const endpoint = /^(.*)\/mcp(?:\/[^/]+)?$/.exec(path);
  return { relay: `${u.origin}${endpoint ? endpoint[1] : path}`, endpoint: endpoint !== null };
}

/**
 * The relay URL `typed` as its origin plus path, without a trailing slash. Throws a message for
 * the person at the terminal when it is not an http:// or https:// URL, with the likely one when
 * only the scheme is missing, and when it is the relay's MCP endpoint, with the relay's URL.
 */
export function normaliseRelayUrl(typed: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(typed)) {
    const meant = withLikelyScheme(typed);
    throw new Error(`the relay URL must start with http:// or https://, not "${typed}"${meant ? `; did you mean ${meant}?` : ''}`);
  }
  if (!URL.canParse(typed)) throw new Error(`the relay URL "${typed}" is not a valid URL`);
  const u = new URL(typed);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`the relay URL must start with http:// or https://, not "${typed}"`);
  const { relay, endpoint } = relayOf(u);
  if (endpoint) throw new Error(`"${typed}" is the relay's MCP endpoint, which your assistant connects to; this command takes the relay's own URL: did you mean ${relay}?`);
  return relay;
}
