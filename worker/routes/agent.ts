/**
 * `/agent`: the agents' WebSocket endpoint. Turns away what is obviously not an agent (no upgrade:
 * 426; no bearer credential: 401) without waking the Hub, then hands the upgrade to the Hub, which
 * verifies the device token before accepting (401 otherwise, never an upgrade).
 */
import { Hono } from 'hono';
import { hubFor } from '../account.ts';
import { bearerToken } from '../../protocol/http/bearer.ts';
import { jsonError, unauthorized } from '../http/responses.ts';
import type { AppEnv } from './types.ts';

export const agent = new Hono<AppEnv>().all('/', async (c) => {
  // RFC 6455 §4.1 / RFC 9110 §15.5.22: 426 names the protocol to upgrade to.
  if (c.req.header('Upgrade')?.toLowerCase() !== 'websocket') {
    return jsonError(426, 'UPGRADE_REQUIRED', 'This endpoint takes a WebSocket upgrade from a vimrelay agent.', { Upgrade: 'websocket' });
  }
  if (bearerToken(c.req.header('Authorization')) === null) return unauthorized(null);
  return hubFor(c.env).fetch(c.req.raw);
});
