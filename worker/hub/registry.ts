/**
 * The editor registry: which editors each connected device reports. Owns the `editors` table in
 * the Hub's SQLite storage (so that it survives hibernation); device names come from the
 * `devices` table (`auth/devices.ts`). Knows nothing of sockets: the Hub says when a device's list
 * changes or goes away, and which connections are live when it reads the list, so that it lists
 * only editors of this Hub's own live connections (a row of any other, a closed one or another
 * relay's on the same storage, is never routed to), and tells how many rows each connection has,
 * so that the Hub can see a live connection's rows gone (agent-sockets.ts restores them).
 */
import { onlineEditor, type OnlineEditor, type WireEditor } from '../../protocol/index.ts';

// conn_id: the connection that reported the row, so that the close of a replaced connection
// cannot remove what its successor reported (whichever order the two events arrive in).
const SCHEMA = `CREATE TABLE IF NOT EXISTS editors (
  device_id TEXT NOT NULL,
  local_id TEXT NOT NULL,
  conn_id TEXT NOT NULL,
  info TEXT NOT NULL,
  PRIMARY KEY (device_id, local_id)
)`;

type EditorRow = { device_id: string; device_name: string; local_id: string; conn_id: string; info: string };

export class Registry {
  constructor(private readonly storage: DurableObjectStorage) {
    storage.sql.exec(SCHEMA);
  }

  /**
   * Replaces everything `deviceId` reports with `editors` (the wire `hello` / `editors` lists),
   * as reported on connection `connId`.
   */
  replace(deviceId: string, connId: string, editors: readonly WireEditor[]): void {
    this.storage.transactionSync(() => {
      this.storage.sql.exec('DELETE FROM editors WHERE device_id = ?', deviceId);
      for (const editor of editors) {
        // A list repeating an id keeps the last entry.
        this.storage.sql.exec(
          'INSERT OR REPLACE INTO editors (device_id, local_id, conn_id, info) VALUES (?, ?, ?, ?)',
          deviceId,
          editor.id,
          connId,
          JSON.stringify(editor),
        );
      }
    });
  }

  /** Forgets the editors of a device that went offline. */
  drop(deviceId: string): void {
    this.storage.sql.exec('DELETE FROM editors WHERE device_id = ?', deviceId);
  }

  /** Forgets the editors that connection `connId` reported (it closed); a successor's stay. */
  dropConnection(deviceId: string, connId: string): void {
    this.storage.sql.exec('DELETE FROM editors WHERE device_id = ? AND conn_id = ?', deviceId, connId);
  }

  /**
   * Forgets the editors of every connection not in `live` (a restart closed their sockets).
   * Returns the devices whose editors it forgot: they were online until the restart.
   */
  keepOnly(live: ReadonlySet<string>): string[] {
    const stale = this.storage.sql
      .exec<{ device_id: string; conn_id: string }>('SELECT DISTINCT device_id, conn_id FROM editors')
      .toArray()
      .filter((row) => !live.has(row.conn_id));
    for (const row of stale) this.dropConnection(row.device_id, row.conn_id);
    return [...new Set(stale.map((row) => row.device_id))];
  }

  /** How many editors each connection has in the table, by connection id. */
  counts(): Map<string, number> {
    const rows = this.storage.sql.exec<{ conn_id: string; n: number }>('SELECT conn_id, COUNT(*) AS n FROM editors GROUP BY conn_id').toArray();
    return new Map(rows.map((row) => [row.conn_id, row.n]));
  }

  /** Every editor of a connection in `live`, ordered by device name then local id, with public ids. */
  online(live: ReadonlySet<string>): OnlineEditor[] {
    return this.storage.sql
      .exec<EditorRow>(
        `SELECT e.device_id, d.name AS device_name, e.local_id, e.conn_id, e.info
         FROM editors e JOIN devices d ON d.id = e.device_id
         ORDER BY d.name, e.local_id`,
      )
      .toArray()
      .filter((row) => live.has(row.conn_id))
      .map((row) => onlineEditor(row.device_id, row.device_name, { ...(JSON.parse(row.info) as WireEditor), id: row.local_id }));
  }
}
