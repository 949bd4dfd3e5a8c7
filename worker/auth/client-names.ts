/**
 * What the owner's pages call a client, by its client id: the consent page shows an OAuth client's
 * name (RFC 7591 `client_name`, or its Client ID Metadata Document's), the dashboard a personal
 * access token as `<name> (personal access token)`. The same names go to the agent with each call
 * (wire `client_name`), for its prompts and audit log. Every name here is the client's own words:
 * whoever shows it escapes it.
 */
import { isCimdClientId } from './cimd-policy.ts';
import { oauthHelpers } from './oauth.ts';
import type { Env } from '../env.ts';

/** Prefix of a personal access token's client id (claims.ts `patClientId`). */
const PAT_PREFIX = 'pat:';

/** The name of a personal access token's client id `pat:<name>`, or null for another id. */
export function patClientName(clientId: string): string | null {
  return clientId.startsWith(PAT_PREFIX) ? `${clientId.slice(PAT_PREFIX.length)} (personal access token)` : null;
}

/**
 * The name of `clientId` at the relay at `origin`: a personal access token's, else the name an
 * OAuth client registered with; null when neither is known. A Client ID Metadata Document client
 * is not looked up: that would fetch its document, which only the owner may cause (its name is
 * kept with each grant at consent instead).
 */
export async function registeredClientName(env: Env, origin: string, clientId: string): Promise<string | null> {
  const pat = patClientName(clientId);
  if (pat !== null) return pat;
  if (clientId === '' || isCimdClientId(clientId)) return null;
  return (await oauthHelpers(env, origin).lookupClient(clientId).catch(() => null))?.clientName ?? null;
}
