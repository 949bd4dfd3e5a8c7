/**
 * The vimrelay Worker: mounts the routes and exports the Hub Durable Object class. Owns nothing
 * else; each route module owns its endpoint.
 *
 *   GET  /health   liveness
 *   POST /mcp      MCP Streamable HTTP (stateless), bearer access token
 *   GET  /agent    agents' WebSocket, bearer device token
 *   *    /admin/*  token API, bearer OWNER_SECRET
 *   GET|POST /signin, POST /signout   the owner's browser session for the pages
 */
import { Hono } from 'hono';
import { jsonError } from './http/responses.ts';
import { admin } from './routes/admin.ts';
import { agent } from './routes/agent.ts';
import { health } from './routes/health.ts';
import { mcp } from './routes/mcp.ts';
import { signin } from './routes/signin.ts';
import type { AppEnv } from './routes/types.ts';

export { Hub } from './hub/hub.ts';

const app = new Hono<AppEnv>();

app.route('/health', health);
app.route('/mcp', mcp);
app.route('/agent', agent);
app.route('/admin', admin);
app.route('/', signin);

app.notFound(() => jsonError(404, 'NOT_FOUND', 'No such endpoint.'));
// Never echo internal errors: they may carry storage or token details.
app.onError((err) => {
  console.error('vimrelay: unhandled error', err instanceof Error ? err.message : String(err));
  return jsonError(500, 'INTERNAL', 'Internal error.');
});

export default app;
