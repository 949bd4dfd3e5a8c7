/**
 * The owner's OAuth grants as the dashboard lists them, read through the OAuth library's helpers
 * (`auth/oauth.ts`), and their revocation. Every name here comes from a client's own registration
 * (RFC 7591 `client_name`, or a Client ID Metadata Document): the page escapes it.
 */
import { OWNER_ACCOUNT } from '../account.ts';
import { oauthHelpers } from '../auth/oauth.ts';
import type { Env } from '../env.ts';
import type { GrantView } from '../pages/dashboard.ts';

/** Most grants listed on the page (the library pages its listings). */
export const MAX_LISTED_GRANTS = 100;

/** The host a redirect URI sends codes to, or the text itself when it is not a URL. */
export function redirectHost(uri: string | undefined): string {
  if (uri === undefined) return 'unknown';
  try {
    return new URL(uri).host || uri;
  } catch {
    return uri;
  }
}

/** The owner's grants, newest first, with their clients' names and redirect hosts. */
export async function listGrants(env: Env, origin: string): Promise<GrantView[]> {
  const oauth = oauthHelpers(env, origin);
  const { items } = await oauth.listUserGrants(OWNER_ACCOUNT, { limit: MAX_LISTED_GRANTS });
  const clients = new Map(await Promise.all([...new Set(items.map((g) => g.clientId))].map(async (id) => [id, await oauth.lookupClient(id)] as const)));
  return items
    .map((g) => {
      const client = clients.get(g.clientId) ?? null;
      return {
        id: g.id,
        clientId: g.clientId,
        clientName: client?.clientName ?? g.clientId,
        // The redirect URI this grant was made for; older grants did not record it.
        redirectHost: redirectHost(g.redirectUri ?? client?.redirectUris[0]),
        scopes: g.scope,
        createdAt: new Date(g.createdAt * 1000).toISOString(),
      };
    })
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
}

/** Revokes one of the owner's grants (its access and refresh tokens stop working). False when it is not one. */
export async function revokeGrant(env: Env, origin: string, grantId: string): Promise<boolean> {
  const grants = await listGrants(env, origin);
  if (!grants.some((g) => g.id === grantId)) return false;
  await oauthHelpers(env, origin).revokeGrant(grantId, OWNER_ACCOUNT);
  return true;
}
