/**
 * The owner's OAuth grants as the dashboard lists them, read through the OAuth library's helpers
 * (`auth/oauth.ts`): one row per client, however many times the owner consented to it (each
 * consent is a grant; the same assistant on two machines holds two), with the scopes all its
 * grants hold, where they redirect, and when it was last allowed. Revoking a row ends every grant
 * of that client. Also names the clients of the recent-calls log. Every name here comes from a
 * client's own registration (RFC 7591 `client_name`, or a Client ID Metadata Document): the page
 * escapes it.
 */
import type { GrantSummary } from '@cloudflare/workers-oauth-provider';
import { ALL_SCOPES } from '../../protocol/index.ts';
import { OWNER_ACCOUNT } from '../account.ts';
import { registeredClientName } from '../auth/client-names.ts';
import { oauthHelpers } from '../auth/oauth.ts';
import { ownerGrants } from '../auth/owner-grants.ts';
import type { Env } from '../env.ts';
import type { GrantView } from '../pages/dashboard.ts';

/** The host a redirect URI sends codes to, or the text itself when it is not a URL. */
export function redirectHost(uri: string | undefined): string {
  if (uri === undefined) return 'unknown';
  try {
    return new URL(uri).host || uri;
  } catch {
    return uri;
  }
}

/** One row per client, most recently allowed first, with its name, redirect hosts and the scopes of all its grants. */
export async function listGrants(env: Env, origin: string): Promise<GrantView[]> {
  const oauth = oauthHelpers(env, origin);
  const byClient = new Map<string, GrantSummary[]>();
  for (const g of await ownerGrants(env, origin)) byClient.set(g.clientId, [...(byClient.get(g.clientId) ?? []), g]);
  const rows = await Promise.all(
    [...byClient].map(async ([clientId, grants]): Promise<GrantView> => {
      // Every client listed here holds a grant the owner made: looking it up (a CIMD client's
      // document included) is no fetch an anonymous visitor could trigger.
      const client = await oauth.lookupClient(clientId).catch(() => null);
      const scopes = new Set(grants.flatMap((g) => g.scope));
      const newest = Math.max(...grants.map((g) => g.createdAt));
      return {
        clientId,
        clientName: client?.clientName ?? clientId,
        // The redirect URI each grant was made for; older grants did not record it.
        redirectHosts: [...new Set(grants.map((g) => redirectHost(g.redirectUri ?? client?.redirectUris[0])))],
        scopes: [...ALL_SCOPES.filter((s) => scopes.has(s)), ...[...scopes].filter((s) => !(ALL_SCOPES as readonly string[]).includes(s))],
        grants: grants.length,
        lastAllowedAt: new Date(newest * 1000).toISOString(),
      };
    }),
  );
  return rows.sort((a, b) => (a.lastAllowedAt < b.lastAllowedAt ? 1 : a.lastAllowedAt > b.lastAllowedAt ? -1 : 0));
}

/** Revokes every grant the owner holds for `clientId` (their access and refresh tokens stop working); how many. */
export async function revokeClient(env: Env, origin: string, clientId: string): Promise<number> {
  const oauth = oauthHelpers(env, origin);
  const grants = (await ownerGrants(env, origin)).filter((g) => g.clientId === clientId);
  await Promise.all(grants.map((g) => oauth.revokeGrant(g.id, OWNER_ACCOUNT)));
  return grants.length;
}

/**
 * A name for each client id of the recent-calls log: a personal access token's own name, an OAuth
 * client's registered name (from the grants listed, else its registration), else the id itself.
 * A CIMD client without a grant is not looked up: that would fetch its document.
 */
export async function clientNames(env: Env, origin: string, ids: Iterable<string>, grants: readonly GrantView[]): Promise<Record<string, string>> {
  const known = new Map(grants.map((g) => [g.clientId, g.clientName]));
  const names: Record<string, string> = {};
  await Promise.all(
    [...new Set(ids)].map(async (id) => {
      names[id] = known.get(id) ?? (await registeredClientName(env, origin, id)) ?? id;
    }),
  );
  return names;
}
