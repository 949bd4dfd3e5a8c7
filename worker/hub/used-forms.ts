/**
 * Pending-page forms already sent (PROTOCOL.md "Pending decisions"): each form the page makes
 * carries a nonce of its own (auth/decision-forms.ts), which works once. Owns the `used_forms`
 * table: the SHA-256 of each nonce sent, kept until the form would have expired anyway, so that a
 * form sent again (a reload that re-posts it, a copy of the request replayed) is refused however
 * long the Hub slept meanwhile.
 */

const SCHEMA = `CREATE TABLE IF NOT EXISTS used_forms (
  hash TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
)`;

export class UsedForms {
  constructor(private readonly storage: DurableObjectStorage) {
    storage.sql.exec(SCHEMA);
  }

  /** Records the form with nonce hash `hash` (valid until `expiresAtMs`) as sent; false when it was sent before. */
  use(hash: string, expiresAtMs: number, nowMs: number): boolean {
    return this.storage.transactionSync(() => {
      const sql = this.storage.sql;
      sql.exec('DELETE FROM used_forms WHERE expires_at <= ?', nowMs);
      if (sql.exec('SELECT 1 FROM used_forms WHERE hash = ?', hash).toArray().length > 0) return false;
      sql.exec('INSERT INTO used_forms (hash, expires_at) VALUES (?, ?)', hash, expiresAtMs);
      return true;
    });
  }
}
