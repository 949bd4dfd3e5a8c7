/**
 * The owner's browser sessions, server side. Owns the `sessions` table: one row per signed-in
 * browser with the SHA-256 of its random session id (the cookie holds the id, never stored here),
 * and when it started and expires. A cookie is honoured only while its row exists, so signing out
 * ends that session for whoever holds a copy of the cookie, and "sign out everywhere" ends them all
 * (OWASP Session Management Cheat Sheet, "Session Expiration": invalidate on the server side).
 * The cookie's own authenticity (HMAC, expiry) is `auth/session.ts`'s business.
 */

const SCHEMA = `CREATE TABLE IF NOT EXISTS sessions (
  id_hash TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
)`;

/** Most sessions kept at once; signing in past it ends the oldest. */
const MAX_SESSIONS = 100;

export class SessionStore {
  constructor(private readonly storage: DurableObjectStorage) {
    storage.sql.exec(SCHEMA);
  }

  /** Records a new session (its id's hash) until `expiresAtMs`; forgets expired ones and the oldest past MAX_SESSIONS. */
  start(idHash: string, expiresAtMs: number, nowMs: number): void {
    this.storage.transactionSync(() => {
      const sql = this.storage.sql;
      sql.exec('DELETE FROM sessions WHERE expires_at <= ?', nowMs);
      sql.exec('INSERT OR REPLACE INTO sessions (id_hash, created_at, expires_at) VALUES (?, ?, ?)', idHash, nowMs, expiresAtMs);
      sql.exec('DELETE FROM sessions WHERE id_hash NOT IN (SELECT id_hash FROM sessions ORDER BY created_at DESC LIMIT ?)', MAX_SESSIONS);
    });
  }

  /** Whether the session with this id hash is recorded and unexpired at `nowMs`. */
  live(idHash: string, nowMs: number): boolean {
    return this.storage.sql.exec('SELECT 1 FROM sessions WHERE id_hash = ? AND expires_at > ?', idHash, nowMs).toArray().length > 0;
  }

  /** Ends one session; false when it was not live. */
  end(idHash: string): boolean {
    return this.storage.sql.exec('DELETE FROM sessions WHERE id_hash = ?', idHash).rowsWritten > 0;
  }

  /** Ends every session; returns how many there were. */
  endAll(): number {
    return this.storage.sql.exec('DELETE FROM sessions').rowsWritten;
  }
}
