/**
 * Refresh token replay detection (RFC 9700 §4.14.2, refresh token rotation): which refresh tokens
 * the token endpoint has already exchanged, and which grants a replay burnt. Owns two tables:
 * `used_refresh_tokens` (the SHA-256 of each exchanged refresh token, its grant, when) and
 * `burnt_grants` (grants revoked because one of their refresh tokens came back).
 *
 * A token is claimed before the OAuth library exchanges it and released when the library refuses
 * it (or fails), so the table holds only tokens that were issued and exchanged: a made-up token
 * naming a grant never burns it. A second claim of a held token, while the first exchange is still
 * running too, is a replay. Counting one in flight as a replay is what RFC 9700 asks (the server
 * cannot tell which of two presenters is the thief), and it closes the race where both would be
 * answered. The Durable Object runs each method to its end before the next, so a claim is atomic.
 *
 * A claim whose exchange never settled (the isolate died in between) is forgotten after
 * PENDING_MS, so that the client's retry is not taken for a replay. Rows live as long as a grant can (`retainMs`: the refresh token lifetime, after which the
 * library has dropped the grant anyway), and a grant keeps its newest MAX_PER_GRANT tokens: older
 * ones are still refused by the library, only no longer recognised as a replay.
 */

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS used_refresh_tokens (
    hash TEXT PRIMARY KEY,
    grant_key TEXT NOT NULL,
    exchanged INTEGER NOT NULL,
    used_at INTEGER NOT NULL
  )`,
  'CREATE INDEX IF NOT EXISTS used_refresh_tokens_grant ON used_refresh_tokens (grant_key, used_at)',
  `CREATE TABLE IF NOT EXISTS burnt_grants (
    grant_key TEXT PRIMARY KEY,
    burnt_at INTEGER NOT NULL
  )`,
];

/** Exchanged refresh tokens remembered per grant (a client refreshing hourly makes 720 in 30 days). */
export const MAX_PER_GRANT = 2000;

/**
 * How long a grant's refresh tokens live, from its authorization (seconds): the OAuth provider's
 * `refreshTokenTTL` (auth/oauth.ts), 30 days as the library's default.
 */
export const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;

/** How long an unsettled claim holds its token (an exchange takes well under a second). */
export const PENDING_MS = 60_000;

/** A claim's verdict: go ahead with the exchange, or refuse it and revoke the grant (a replay, or a grant a replay burnt). */
export type RefreshClaim = 'fresh' | 'replayed';

export class UsedRefreshTokens {
  constructor(private readonly storage: DurableObjectStorage) {
    for (const statement of SCHEMA) storage.sql.exec(statement);
  }

  /**
   * Claims the refresh token with SHA-256 `hash`, of grant `grantKey`, at `nowMs`: `fresh` when it
   * was never exchanged (nor is being), else `replayed`, which burns the grant for good.
   */
  claim(hash: string, grantKey: string, nowMs: number): RefreshClaim {
    return this.storage.transactionSync(() => {
      const sql = this.storage.sql;
      this.forgetOld(nowMs);
      if (this.burnt(grantKey)) return 'replayed';
      if (sql.exec('SELECT 1 FROM used_refresh_tokens WHERE hash = ?', hash).toArray().length > 0) {
        sql.exec('INSERT OR IGNORE INTO burnt_grants (grant_key, burnt_at) VALUES (?, ?)', grantKey, nowMs);
        return 'replayed';
      }
      sql.exec('INSERT INTO used_refresh_tokens (hash, grant_key, exchanged, used_at) VALUES (?, ?, 0, ?)', hash, grantKey, nowMs);
      return 'fresh';
    });
  }

  /**
   * Settles a `fresh` claim: `exchanged` keeps the token as used (its successor was issued), else
   * it is forgotten (the library refused it). Returns whether the grant was burnt meanwhile, by a
   * replay that came while this exchange ran: then the caller revokes the grant again, since the
   * library may have written it back after the first revocation.
   */
  settle(hash: string, grantKey: string, exchanged: boolean): { burnt: boolean } {
    return this.storage.transactionSync(() => {
      const sql = this.storage.sql;
      if (exchanged) {
        sql.exec('UPDATE used_refresh_tokens SET exchanged = 1 WHERE hash = ?', hash);
        sql.exec(
          'DELETE FROM used_refresh_tokens WHERE grant_key = ? AND hash NOT IN (SELECT hash FROM used_refresh_tokens WHERE grant_key = ? ORDER BY used_at DESC LIMIT ?)',
          grantKey,
          grantKey,
          MAX_PER_GRANT,
        );
      } else {
        sql.exec('DELETE FROM used_refresh_tokens WHERE hash = ? AND exchanged = 0', hash);
      }
      return { burnt: this.burnt(grantKey) };
    });
  }

  private burnt(grantKey: string): boolean {
    return this.storage.sql.exec('SELECT 1 FROM burnt_grants WHERE grant_key = ?', grantKey).toArray().length > 0;
  }

  private forgetOld(nowMs: number): void {
    const before = nowMs - REFRESH_TOKEN_TTL_S * 1000;
    this.storage.sql.exec('DELETE FROM used_refresh_tokens WHERE used_at < ? OR (exchanged = 0 AND used_at < ?)', before, nowMs - PENDING_MS);
    this.storage.sql.exec('DELETE FROM burnt_grants WHERE burnt_at < ?', before);
  }
}
