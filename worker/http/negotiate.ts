/**
 * Whether a request wants an HTML page or a JSON answer. Browsers ask for `text/html` in Accept
 * on every navigation (Fetch standard §4.1, the navigation request's default Accept); API clients
 * (the CLI, MCP clients, curl) do not. Pure: reads headers, builds nothing.
 */

/** True when the Accept header names `text/html` (RFC 9110 §12.5.1), the mark of a browser navigation. */
export function wantsHtml(request: Request): boolean {
  const accept = request.headers.get('Accept') ?? '';
  return accept
    .split(',')
    .map((range) => range.split(';')[0]?.trim().toLowerCase())
    .some((type) => type === 'text/html');
}
