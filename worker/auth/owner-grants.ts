/**
 * Every OAuth grant the owner holds, read through the OAuth library's helpers (`oauth.ts`), which
 * list them a page at a time. Bounded: at most MAX_GRANT_PAGES pages of GRANT_PAGE_SIZE.
 */
import type { GrantSummary } from '@cloudflare/workers-oauth-provider';
import { OWNER_ACCOUNT } from '../account.ts';
import type { Env } from '../env.ts';
import { oauthHelpers } from './oauth.ts';

/** Grants read per page, and pages read at most (10,000 grants: far more than one person makes). */
const GRANT_PAGE_SIZE = 1000;
const MAX_GRANT_PAGES = 10;

export async function ownerGrants(env: Env, origin: string): Promise<GrantSummary[]> {
  const oauth = oauthHelpers(env, origin);
  const all: GrantSummary[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_GRANT_PAGES; page++) {
    const { items, cursor: next } = await oauth.listUserGrants(OWNER_ACCOUNT, { limit: GRANT_PAGE_SIZE, ...(cursor ? { cursor } : {}) });
    all.push(...items);
    if (!next) break;
    cursor = next;
  }
  return all;
}
