/**
 * `vimrelay serve --http` is an MCP server, not a relay, and says so: every path but /mcp is
 * answered 404 with `{error: {code: "NOT_FOUND", message, server: "vimrelay serve"}}`, and a
 * command that wants a relay (`vimrelay pair`, `enroll`, `token create`, `devices`) given its URL
 * tells the user what it is and what to give instead, rather than "answered HTTP 404".
 */

/** The `server` of the local server's 404 body: what tells it from a relay, or from anything else. */
export const LOCAL_SERVER = 'vimrelay serve';

/** The body of the local server's 404. */
export function localNotFoundBody(): string {
  return JSON.stringify({
    error: { code: 'NOT_FOUND', message: 'No such endpoint: this is `vimrelay serve`, a local MCP server, not a relay; MCP is served at /mcp.', server: LOCAL_SERVER },
  });
}

/**
 * The error to throw when `status` and `text` answered a request for a relay at `url` are the
 * local server's 404; null for any other answer.
 */
export function localServerRefusal(url: string, status: number, text: string): Error | null {
  if (status !== 404) return null;
  let server: unknown;
  try {
    server = (JSON.parse(text) as { error?: { server?: unknown } }).error?.server;
  } catch {
    return null;
  }
  if (server !== LOCAL_SERVER) return null;
  const origin = new URL(url).origin;
  return new Error(
    `${origin} is \`vimrelay serve\`, a local MCP server, not a relay: it pairs no devices and mints no tokens. ` +
      `Give the URL of a relay (the one \`npm start\` prints, http://127.0.0.1:8787 by default, or your deployed relay's); ` +
      `MCP clients on this machine use ${origin}/mcp directly.`,
  );
}
