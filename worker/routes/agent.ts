/**
 * `/agent`: the agents' endpoints.
 *
 *   POST /agent/token   Authorization: Bearer <device credential>
 *                       -> 200 {token, token_type, expires_in, device} | 401
 *   GET  /agent         WebSocket upgrade, Authorization: Bearer <device JWT>
 *
 * The token endpoint trades a device's long-lived credential for a short-lived device JWT; the
 * Hub checks the credential (hashed, constant-time) and refuses an unknown or revoked one. The
 * upgrade turns away what is obviously not an agent (no upgrade: 426; no bearer: 401) without
 * waking the Hub, then hands the upgrade to the Hub, which verifies the JWT before accepting
 * (401 otherwise, never an upgrade).
 */
import { Hono } from 'hono';
import { hubFor } from '../account.ts';
import { bearerToken } from '../../protocol/http/bearer.ts';
import { relayOrigin } from '../config.ts';
import { jsonError, unauthorized } from '../http/responses.ts';
import type { AppEnv } from './types.ts';

export const agent = new Hono<AppEnv>();

agent.post('/token', async (c) => {
  const credential = bearerToken(c.req.header('Authorization'));
  if (credential === null) return unauthorized(null);
  const jwt = await hubFor(c.env).deviceJwt(credential, relayOrigin(c.env, c.req.url));
  if (!jwt) return unauthorized('The device credential is unknown or revoked; pair this machine again.');
  // RFC 6749 §5.1: token responses are not cached.
  return c.json({ token: jwt.token, token_type: 'Bearer', expires_in: jwt.expires_in, device: jwt.device }, 200, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
});

agent.all('/', async (c) => {
  // RFC 6455 §4.1 / RFC 9110 §15.5.22: 426 names the protocol to upgrade to.
  if (c.req.header('Upgrade')?.toLowerCase() !== 'websocket') {
    return jsonError(426, 'UPGRADE_REQUIRED', 'This endpoint takes a WebSocket upgrade from a vimrelay agent.', { Upgrade: 'websocket' });
  }
  if (bearerToken(c.req.header('Authorization')) === null) return unauthorized(null);
  return hubFor(c.env).fetch(c.req.raw);
});
