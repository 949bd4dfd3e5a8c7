/**
 * The pending decisions agents publish for the Pending page (PROTOCOL.md "Pending decisions").
 * Owns the `decisions` table in the Hub's SQLite storage, so that a hibernating Hub still has
 * them: one row per decision, with the device and the connection that published it, so that the
 * close of a replaced connection cannot remove what its successor published. A device's list is
 * replaced by each `decisions` message and dropped with its connection. Knows nothing of sockets:
 * agent-sockets.ts says when a list changes or a connection ends. Trusts nothing in a decision
 * but its shape (protocol/wire.ts validated it): the page escapes every string.
 */
import type { Surface, WireDecision } from '../../protocol/index.ts';

// seq: the order the agent listed them in (oldest first). A settled decision keeps a row with
// `settled_by` (where it was decided) and no body, until the agent stops listing it as settled.
const SCHEMA = `CREATE TABLE IF NOT EXISTS decisions (
  device_id TEXT NOT NULL,
  id TEXT NOT NULL,
  conn_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  body TEXT,
  settled_by TEXT,
  PRIMARY KEY (device_id, id)
)`;

/** Where a decision is: pending on a device, or settled there (and where it was decided). */
export interface Holder {
  deviceId: string;
  settledBy: Surface | null;
}

/** The decisions of one device, as the Pending page lists them. */
export interface DeviceDecisions {
  device: { id: string; name: string };
  decisions: WireDecision[];
}

type Row = { device_id: string; device_name: string; body: string | null };

export class PublishedDecisions {
  constructor(private readonly storage: DurableObjectStorage) {
    storage.sql.exec(SCHEMA);
  }

  /**
   * Replaces every decision of `deviceId` with `decisions` and `settled` (those decided lately,
   * with where), as published on connection `connId`.
   */
  replace(deviceId: string, connId: string, decisions: readonly WireDecision[], settled: readonly { id: string; by: Surface }[]): void {
    this.storage.transactionSync(() => {
      this.storage.sql.exec('DELETE FROM decisions WHERE device_id = ?', deviceId);
      for (const s of settled) {
        this.storage.sql.exec('INSERT OR REPLACE INTO decisions (device_id, id, conn_id, seq, expires_at, settled_by) VALUES (?, ?, ?, 0, 0, ?)', deviceId, s.id, connId, s.by);
      }
      decisions.forEach((d, seq) => {
        const expires = Date.parse(d.expires_at);
        // A list repeating an id keeps the last entry.
        this.storage.sql.exec(
          'INSERT OR REPLACE INTO decisions (device_id, id, conn_id, seq, expires_at, body) VALUES (?, ?, ?, ?, ?, ?)',
          deviceId,
          d.id,
          connId,
          seq,
          Number.isFinite(expires) ? expires : 0,
          JSON.stringify(d),
        );
      });
    });
  }

  /** Forgets what connection `connId` published (it closed); a successor's stay. */
  dropConnection(deviceId: string, connId: string): void {
    this.storage.sql.exec('DELETE FROM decisions WHERE device_id = ? AND conn_id = ?', deviceId, connId);
  }

  /** Forgets what every connection not in `live` published (a restart closed their sockets). */
  keepOnly(live: ReadonlySet<string>): void {
    const stale = this.storage.sql
      .exec<{ device_id: string; conn_id: string }>('SELECT DISTINCT device_id, conn_id FROM decisions')
      .toArray()
      .filter((row) => !live.has(row.conn_id));
    for (const row of stale) this.dropConnection(row.device_id, row.conn_id);
  }

  /** Every decision not expired at `nowMs`, by device name, each device's in the order it listed them. */
  pending(nowMs: number): DeviceDecisions[] {
    const rows = this.storage.sql
      .exec<Row>(
        `SELECT x.device_id, d.name AS device_name, x.body
         FROM decisions x JOIN devices d ON d.id = x.device_id
         WHERE x.settled_by IS NULL AND x.expires_at > ?
         ORDER BY d.name, x.device_id, x.seq`,
        nowMs,
      )
      .toArray();
    const out: DeviceDecisions[] = [];
    for (const row of rows) {
      let last = out.at(-1);
      if (last?.device.id !== row.device_id) out.push((last = { device: { id: row.device_id, name: row.device_name }, decisions: [] }));
      last.decisions.push(JSON.parse(row.body ?? 'null') as WireDecision);
    }
    return out;
  }

  /** Which devices hold decision `id`: pending there (not expired at `nowMs`), or settled lately. */
  holders(id: string, nowMs: number): Holder[] {
    return this.storage.sql
      .exec<{ device_id: string; settled_by: string | null }>('SELECT device_id, settled_by FROM decisions WHERE id = ? AND (settled_by IS NOT NULL OR expires_at > ?)', id, nowMs)
      .toArray()
      .map((row) => ({ deviceId: row.device_id, settledBy: row.settled_by as Surface | null }));
  }
}
