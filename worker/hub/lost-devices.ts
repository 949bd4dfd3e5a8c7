/**
 * The devices whose agents this Hub held and lost, and when: a socket that closed or fell silent,
 * or the sockets a restart closed (agent-sockets.ts). What NO_EDITOR names as reconnecting
 * (reconnecting.ts), so that it names only devices lost here, never one whose agent is merely
 * known to the devices table (another relay on the same storage touches it too). A device is
 * forgotten when its agent says hello again, and rows older than `keepMs` go as others are written.
 * Owns the `lost_devices` table; knows nothing of sockets.
 */

const SCHEMA = `CREATE TABLE IF NOT EXISTS lost_devices (
  device_id TEXT PRIMARY KEY,
  lost_at INTEGER NOT NULL
)`;

export class LostDevices {
  readonly #sql: SqlStorage;
  readonly #keepMs: number;

  /** `keepMs`: how long a loss is worth remembering (the reconnecting window). */
  constructor(sql: SqlStorage, keepMs: number) {
    this.#sql = sql;
    this.#keepMs = keepMs;
    sql.exec(SCHEMA);
  }

  /** The agent of `deviceId` was lost at `atMs` (a later loss replaces an earlier one). */
  lost(deviceId: string, atMs: number): void {
    this.#sql.exec('DELETE FROM lost_devices WHERE lost_at < ?', atMs - this.#keepMs);
    this.#sql.exec('INSERT OR REPLACE INTO lost_devices (device_id, lost_at) VALUES (?, ?)', deviceId, atMs);
  }

  /** The agent of `deviceId` is back (it said hello). */
  found(deviceId: string): void {
    this.#sql.exec('DELETE FROM lost_devices WHERE device_id = ?', deviceId);
  }

  /** Each device lost, with when. */
  all(): Map<string, number> {
    const rows = this.#sql.exec<{ device_id: string; lost_at: number }>('SELECT device_id, lost_at FROM lost_devices').toArray();
    return new Map(rows.map((row) => [row.device_id, row.lost_at]));
  }
}
