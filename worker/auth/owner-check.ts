/**
 * An owner-secret attempt as the routes make it: the secret the request presents, compared by the
 * account's Hub under its guess limits (`hub/owner-guesses.ts`), keyed by the request's client
 * address. The one way `/signin` and `/admin/*` check the owner secret.
 */
import { hubFor } from '../account.ts';
import type { Env } from '../env.ts';
import { clientAddress } from '../http/client-address.ts';
import type { OwnerSecretCheck } from '../hub/owner-guesses.ts';

export type { OwnerSecretCheck };

/** Checks `presented` against OWNER_SECRET (which the caller has found set) for `request`'s client. */
export function checkOwnerSecret(env: Env, request: Request, presented: string, secret: string): Promise<OwnerSecretCheck> {
  return hubFor(env).checkOwnerSecret(presented, secret, clientAddress(request));
}
