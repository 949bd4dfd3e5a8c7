/**
 * The Worker's bindings (wrangler.toml) as one type. Declares; reads nothing. `config.ts` turns
 * the optional variables into values.
 */
import type { Vars } from './config.ts';
import type { Hub } from './hub/hub.ts';

export interface Env extends Vars {
  /** One Hub per account (`account.ts`). */
  readonly HUB: DurableObjectNamespace<Hub>;
  /** Bearer credential of `/admin/*` (a Worker secret). Unset: the admin API answers 503. */
  readonly OWNER_SECRET?: string;
  /**
   * The user name that sets the owner's own attempts apart from everyone's guesses (HTTP Basic, on
   * the local relay's pages and on `/admin/*`; `hub/owner-guesses.ts`). `npm start` generates it
   * into `.dev.vars`. Unset: no attempt is set apart.
   */
  readonly OWNER_USER?: string;
  /** The OAuth authorization server's storage: clients, grants, hashed tokens (auth/oauth.ts). */
  readonly OAUTH_KV: KVNamespace;
  /** Comma-separated exact OAuth redirect URIs accepted besides the built-in ones (auth/redirect-policy.ts). */
  readonly REDIRECT_URIS?: string;
}
