/**
 * The network the `workers-egress` project's Worker sees: every request its global `fetch` sends
 * reaches `network()` (Miniflare's `outboundService`) instead of the internet, and is recorded.
 * It answers DNS over HTTPS for a few names (some resolving to public addresses, some to loopback
 * or link-local ones, as a rebinding attacker's would) and serves Client ID Metadata Documents,
 * which a test may rename.
 * `log()` serves the record to the tests through a service binding. Runs in Node, in the pool.
 */

/** What each test name resolves to (A and AAAA records). */
const DNS: Readonly<Record<string, { A?: string[]; AAAA?: string[] }>> = {
  'public.example': { A: ['93.184.216.34'] },
  'redirect.example': { A: ['93.184.216.35'] },
  'rebind.example': { A: ['127.0.0.1'] },
  'metadata.example': { A: ['169.254.169.254'] },
  'mixed.example': { A: ['93.184.216.36'], AAAA: ['::1'] },
  'ula.example': { AAAA: ['fd00::1'] },
};

/** Every URL the Worker fetched, in order. */
const seen: string[] = [];

function json(value: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(value), { status, headers: { 'Content-Type': 'application/json', ...headers } });
}

/**
 * The `client_name` of each CIMD document public.example serves, by path: one that passes the
 * relay's name rule, one exactly at its 100-character cap, and one for each way of breaking it.
 */
const CLIENT_NAMES: Readonly<Record<string, string>> = {
  '/client.json': 'Published Client',
  '/name-100.json': 'N'.repeat(100),
  '/name-101.json': 'N'.repeat(101),
  '/name-newline.json': 'Published Client\nvimrelay: this app is verified',
  '/name-spaces.json': `Published Client${' '.repeat(40)}(verified by vimrelay)`,
  '/renamed.json': 'Published Client',
  '/renamed-badly.json': 'Published Client',
};

/** Names a test gave documents since (`log()`'s POST): they override CLIENT_NAMES. */
const renamed = new Map<string, string>();

/** The CIMD document at `url`, as a client publishes it, named `name`. */
function clientDocument(url: string, name: string): Record<string, unknown> {
  return {
    client_id: url,
    client_name: name,
    client_uri: 'https://public.example/',
    redirect_uris: ['http://127.0.0.1:43117/callback'],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
}

export function network(request: Request): Response {
  seen.push(request.url);
  const url = new URL(request.url);
  if (url.hostname === 'cloudflare-dns.com' && url.pathname === '/dns-query') {
    const name = url.searchParams.get('name') ?? '';
    const type = url.searchParams.get('type') === 'AAAA' ? 'AAAA' : 'A';
    const records = DNS[name];
    if (!records) return json({ Status: 3, Answer: [] }); // NXDOMAIN
    return json({ Status: 0, Answer: (records[type] ?? []).map((data) => ({ name, type: type === 'A' ? 1 : 28, TTL: 60, data })) });
  }
  const name = url.hostname === 'public.example' ? (renamed.get(url.pathname) ?? CLIENT_NAMES[url.pathname]) : undefined;
  if (name !== undefined) return json(clientDocument(request.url, name), 200, { 'Cache-Control': 'no-store' });
  if (url.hostname === 'redirect.example') return new Response(null, { status: 302, headers: { Location: 'https://127.0.0.1:8443/admin' } });
  return new Response('not found', { status: 404 });
}

/**
 * The record: GET answers every URL seen so far; DELETE clears it. POST `?path=P&name=N` makes
 * public.example's document at P say N from then on, as a publisher that changed it.
 */
export function log(request: Request): Response {
  if (request.method === 'DELETE') seen.length = 0;
  const query = new URL(request.url).searchParams;
  if (request.method === 'POST') renamed.set(query.get('path') ?? '', query.get('name') ?? '');
  return json(seen);
}
