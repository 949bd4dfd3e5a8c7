// What the owner-throttle tests share (owner-throttle*.test.ts, one workerd each: requests in one
// workerd of the test pool grow slower the more it has served, cloudflare/workers-sdk#15446, and
// these files make hundreds): the owner secret, a sign-in and an admin call from an address, and
// a minute passing for the rate limits, moved inside the real Durable Object rather than waited.
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { hubFor } from '../../worker/account.ts';
import type { Hub } from '../../worker/hub/hub.ts';
import { RATE_WINDOW_MS } from '../../worker/hub/rate-limits.ts';
import { relay } from './helpers.ts';

export const SECRET = env.OWNER_SECRET ?? '';

export function signIn(secret: string, ip: string): Promise<Response> {
  return relay('/signin', { method: 'POST', headers: { 'CF-Connecting-IP': ip }, body: new URLSearchParams({ secret, next: '/dashboard' }), redirect: 'manual' });
}

export function adminCall(secret: string, ip: string): Promise<Response> {
  return relay('/admin/tokens', { headers: { Authorization: `Bearer ${secret}`, 'CF-Connecting-IP': ip } });
}

/** Moves every rate-limit window a whole window into the past, as if a minute had gone by. */
export async function windowPasses(): Promise<void> {
  await runInDurableObject(hubFor(env), (_hub: Hub, state) => {
    state.storage.sql.exec('UPDATE rate_limits SET window_start = window_start - ?', RATE_WINDOW_MS);
  });
}
