/**
 * An owner-secret attempt as the routes make it: the secret the request presents, compared by the
 * account's Hub under its guess limits (`hub/owner-guesses.ts`), keyed by the request's client
 * address, or set apart when it names OWNER_USER (the user name of its HTTP Basic credentials).
 * The one way `/signin`, the local relay's pages and `/admin/*` check the owner secret.
 */
import { hubFor } from '../account.ts';
import type { Env } from '../env.ts';
import { clientAddress } from '../http/client-address.ts';
import type { OwnerSecretCheck } from '../hub/owner-guesses.ts';
import { ownerSecretMatches } from './owner.ts';

export type { OwnerSecretCheck };

/** Whether `user` is OWNER_USER (compared in constant time, as the secret is); false when either is unset. */
async function namesOwner(env: Env, user: string | null): Promise<boolean> {
  return user !== null && (await ownerSecretMatches(user, env.OWNER_USER ?? ''));
}

/**
 * Checks `presented` against OWNER_SECRET (which the caller has found set) for `request`'s client;
 * `user` is the user name the attempt came with (HTTP Basic), or null.
 */
export async function checkOwnerSecret(env: Env, request: Request, presented: string, secret: string, user: string | null = null): Promise<OwnerSecretCheck> {
  return hubFor(env).checkOwnerSecret(presented, secret, clientAddress(request), await namesOwner(env, user));
}
