/**
 * Devices: the machines whose agents may connect. Owns the `devices` table. A device is created
 * when a device token is minted (device-code pairing will create them the same way); its name is
 * unique in the account because it prefixes the public ids of the editors it serves.
 */

const SCHEMA = `CREATE TABLE IF NOT EXISTS devices (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER
)`;

/** A device as other modules see it. */
export interface Device {
  readonly id: string;
  readonly name: string;
}

/** Longest device name; suffixes (`-2`) come on top. */
export const MAX_DEVICE_NAME = 64;

export class DeviceStore {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(SCHEMA);
  }

  /**
   * Records a device named `wanted`, or `wanted-2`, `wanted-3`, ... when that name is taken.
   * Synchronous, so that the check and the insert cannot interleave with another request.
   */
  create(id: string, wanted: string, nowMs: number): Device {
    let name = wanted;
    for (let n = 2; this.nameTaken(name); n++) name = `${wanted}-${n}`;
    this.sql.exec('INSERT INTO devices (id, name, created_at) VALUES (?, ?, ?)', id, name, nowMs);
    return { id, name };
  }

  /** The device with this id, or undefined. */
  get(id: string): Device | undefined {
    return this.sql.exec<{ id: string; name: string }>('SELECT id, name FROM devices WHERE id = ?', id).toArray()[0];
  }

  /** Records that the device's agent was heard from. */
  touch(id: string, nowMs: number): void {
    this.sql.exec('UPDATE devices SET last_seen_at = ? WHERE id = ?', nowMs, id);
  }

  private nameTaken(name: string): boolean {
    return this.sql.exec('SELECT 1 FROM devices WHERE name = ?', name).toArray().length > 0;
  }
}
