/**
 * Which browser origins may call `/mcp`. The MCP Streamable HTTP transport requires servers to
 * validate `Origin` against DNS rebinding (spec 2025-06-18 and 2025-11-25, "Security Warning").
 * Pure: the configured lists come in as arguments. Shared by the relay and the local server.
 */

// Loopback origins on any port: local tools (the MCP Inspector, `npm start`) run there.
const LOOPBACK = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

/**
 * Whether a request whose `Origin` header is `origin` may proceed. No header (non-browser
 * clients): yes. Else it must be the request's own origin, the relay's public origin, one of
 * `extra`, or loopback over http.
 */
export function originAllowed(origin: string | null, requestOrigin: string, publicOrigin: string, extra: readonly string[]): boolean {
  if (origin === null) return true;
  if (origin === requestOrigin || origin === publicOrigin || extra.includes(origin)) return true;
  return LOOPBACK.test(origin);
}
