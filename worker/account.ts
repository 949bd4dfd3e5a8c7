/**
 * Accounts. Today there is one: the owner, who holds OWNER_SECRET. Device-code pairing and OAuth
 * (later) add principals inside this account, not new accounts; a multi-account relay would map a
 * principal to its account id here. Owns the mapping from an account to its Hub Durable Object.
 */
import type { Env } from './env.ts';
import type { Hub } from './hub/hub.ts';

/** The id of the single account; also the `sub` of the owner's access tokens. */
export const OWNER_ACCOUNT = 'owner';

/** The Hub of an account: one Durable Object per account, named by the account id. */
export function hubFor(env: Env, account: string = OWNER_ACCOUNT): DurableObjectStub<Hub> {
  return env.HUB.get(env.HUB.idFromName(account));
}
