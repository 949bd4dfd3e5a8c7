/**
 * `GET /`: the relay's front page for a browser (pages/home.ts); for an API client, the same facts
 * as JSON: `{name, mcp_url, dashboard_url}`. Touches no binding.
 */
import { Hono } from 'hono';
import { relayOrigin } from '../config.ts';
import { wantsHtml } from '../http/negotiate.ts';
import { homePage } from '../pages/home.ts';
import type { AppEnv } from './types.ts';

export const home = new Hono<AppEnv>().get('/', (c) => {
  const origin = relayOrigin(c.env, c.req.url);
  if (wantsHtml(c.req.raw)) return homePage(origin);
  return c.json({ name: 'vimrelay', mcp_url: `${origin}/mcp`, dashboard_url: `${origin}/dashboard` });
});
