/**
 * Devices: the machines whose agents may connect. Owns the `devices` table (id, unique name,
 * times) and the `device_credentials` table (the SHA-256 of each device's long-lived credential,
 * its hostname, and when it was revoked). A device is created with its credential, by pairing
 * (`hub/pairings.ts`) or by the owner's admin API, through `enroll` alone. Its name is unique in
 * the account because it prefixes the public ids of the editors it serves.
 *
 * A device is usable while it has a credential that is not revoked. The credential itself is never
 * stored: it is shown once, and presented later it is hashed, looked up by hash and compared in
 * constant time. Sockets are not this module's business: the Hub disconnects a revoked device.
 * Beside the credential: the SHA-256 of the device's first takeover key (the first one an agent
 * proved; hub/takeover.ts), and when and from where the last connection was refused for want of it.
 */
import { hashSecret, newCredential, sameHash } from './pairing.ts';

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS devices (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER
)`,
  `CREATE TABLE IF NOT EXISTS device_credentials (
  device_id TEXT PRIMARY KEY REFERENCES devices(id),
  credential_hash TEXT NOT NULL UNIQUE,
  hostname TEXT,
  revoked_at INTEGER,
  takeover_hash TEXT,
  refused_at INTEGER,
  refused_from TEXT
)`,
];

/** Columns that tables made before takeover keys gain. */
const ADDED_COLUMNS = ['takeover_hash TEXT', 'refused_at INTEGER', 'refused_from TEXT'];

/** A device as other modules see it. */
export interface Device {
  readonly id: string;
  readonly name: string;
}

/** A device as the owner sees it listed. Times are ISO 8601. */
export interface DeviceRecord {
  id: string;
  name: string;
  hostname: string | null;
  created_at: string;
  /** When its agent was last heard from; null if never. */
  last_seen_at: string | null;
  /** Whether its agent has a live socket now (filled in by the Hub). */
  online: boolean;
  /** When a connection with its credential was last refused for want of its agent's takeover key, and from which address; null if never. */
  last_refused_at: string | null;
  last_refused_from: string | null;
  /** When it was revoked, or null. A device without a credential counts as revoked. */
  revoked_at: string | null;
  revoked: boolean;
}

/** A freshly created device and its credential: the only time the credential is returned. */
export interface EnrolledDevice {
  device: Device;
  credential: string;
}

type ListRow = {
  id: string;
  name: string;
  hostname: string | null;
  created_at: number;
  last_seen_at: number | null;
  revoked_at: number | null;
  has_credential: number;
  refused_at: number | null;
  refused_from: string | null;
};

const iso = (ms: number): string => new Date(ms).toISOString();

export class DeviceStore {
  private readonly sql: SqlStorage;

  constructor(private readonly storage: DurableObjectStorage) {
    this.sql = storage.sql;
    for (const statement of SCHEMA) this.sql.exec(statement);
    const columns = new Set(this.sql.exec<{ name: string }>('PRAGMA table_info(device_credentials)').toArray().map((c) => c.name));
    for (const column of ADDED_COLUMNS) if (!columns.has(column.split(' ')[0] ?? '')) this.sql.exec(`ALTER TABLE device_credentials ADD COLUMN ${column}`);
  }

  /**
   * Creates a device named `wanted` (or `wanted-2`, `wanted-3`, ... when that name is taken) with
   * a fresh credential. The name check and both inserts are one synchronous transaction.
   */
  async enroll(wanted: string, hostname: string | null, nowMs: number): Promise<EnrolledDevice> {
    const credential = newCredential();
    const hash = await hashSecret(credential);
    const id = crypto.randomUUID();
    const device = this.storage.transactionSync(() => {
      const name = this.freeName(wanted);
      this.sql.exec('INSERT INTO devices (id, name, created_at) VALUES (?, ?, ?)', id, name, nowMs);
      this.sql.exec('INSERT INTO device_credentials (device_id, credential_hash, hostname) VALUES (?, ?, ?)', id, hash, hostname);
      return { id, name };
    });
    return { device, credential };
  }

  /** The usable device whose credential is `credential`, or undefined (unknown or revoked). */
  async byCredential(credential: string): Promise<Device | undefined> {
    const hash = await hashSecret(credential);
    const row = this.sql
      .exec<{ id: string; name: string; credential_hash: string; revoked_at: number | null }>(
        `SELECT d.id, d.name, c.credential_hash, c.revoked_at FROM device_credentials c JOIN devices d ON d.id = c.device_id
         WHERE c.credential_hash = ?`,
        hash,
      )
      .toArray()[0];
    if (!row || !sameHash(row.credential_hash, hash) || row.revoked_at !== null) return undefined;
    return { id: row.id, name: row.name };
  }

  /** The device with this id if it is usable (has a credential, not revoked); else undefined. */
  usable(id: string): Device | undefined {
    return this.sql
      .exec<{ id: string; name: string }>(
        'SELECT d.id, d.name FROM devices d JOIN device_credentials c ON c.device_id = d.id WHERE d.id = ? AND c.revoked_at IS NULL',
        id,
      )
      .toArray()[0];
  }

  /** Every device, by name; `online` is false here (only the Hub knows the sockets). */
  list(): DeviceRecord[] {
    return this.sql
      .exec<ListRow>(
        `SELECT d.id, d.name, c.hostname, d.created_at, d.last_seen_at, c.revoked_at, c.device_id IS NOT NULL AS has_credential, c.refused_at, c.refused_from
         FROM devices d LEFT JOIN device_credentials c ON c.device_id = d.id ORDER BY d.name`,
      )
      .toArray()
      .map((row) => ({
        id: row.id,
        name: row.name,
        hostname: row.hostname,
        created_at: iso(row.created_at),
        last_seen_at: row.last_seen_at === null ? null : iso(row.last_seen_at),
        online: false,
        revoked_at: row.revoked_at === null ? null : iso(row.revoked_at),
        revoked: row.revoked_at !== null || row.has_credential === 0,
        last_refused_at: row.refused_at === null ? null : iso(row.refused_at),
        last_refused_from: row.refused_from,
      }));
  }

  /** The SHA-256 (hex) of the device's first takeover key, or null while no agent has proved one. */
  firstTakeoverKey(id: string): string | null {
    return this.sql.exec<{ takeover_hash: string | null }>('SELECT takeover_hash FROM device_credentials WHERE device_id = ?', id).toArray()[0]?.takeover_hash ?? null;
  }

  /** Records `hash` as the device's first takeover key, unless it has one already. */
  keepFirstTakeoverKey(id: string, hash: string): void {
    this.sql.exec('UPDATE device_credentials SET takeover_hash = ? WHERE device_id = ? AND takeover_hash IS NULL', hash, id);
  }

  /** Records a refused connection from `address` at `nowMs`; returns when the one before it was refused (null if never). */
  recordRefused(id: string, nowMs: number, address: string): number | null {
    const before = this.sql.exec<{ refused_at: number | null }>('SELECT refused_at FROM device_credentials WHERE device_id = ?', id).toArray()[0]?.refused_at ?? null;
    this.sql.exec('UPDATE device_credentials SET refused_at = ?, refused_from = ? WHERE device_id = ?', nowMs, address, id);
    return before;
  }

  /**
   * Revokes the device's credential (idempotent: a second call keeps the first time). Undefined
   * when no device has this id.
   */
  revoke(id: string, nowMs: number): { device: Device; revoked_at: string } | undefined {
    const device = this.sql.exec<{ id: string; name: string }>('SELECT id, name FROM devices WHERE id = ?', id).toArray()[0];
    if (!device) return undefined;
    this.sql.exec('UPDATE device_credentials SET revoked_at = ? WHERE device_id = ? AND revoked_at IS NULL', nowMs, id);
    const row = this.sql.exec<{ revoked_at: number | null }>('SELECT revoked_at FROM device_credentials WHERE device_id = ?', id).toArray()[0];
    return { device: { id: device.id, name: device.name }, revoked_at: iso(row?.revoked_at ?? nowMs) };
  }

  /** Records that the device's agent was heard from. */
  touch(id: string, nowMs: number): void {
    this.sql.exec('UPDATE devices SET last_seen_at = ? WHERE id = ?', nowMs, id);
  }

  /**
   * The name a device asking for `wanted` gets if it is enrolled now: `wanted`, else the first of
   * `wanted-2`, `wanted-3`, ... that no device has (a revoked one keeps its name).
   */
  freeName(wanted: string): string {
    let name = wanted;
    for (let n = 2; this.nameTaken(name); n++) name = `${wanted}-${n}`;
    return name;
  }

  private nameTaken(name: string): boolean {
    return this.sql.exec('SELECT 1 FROM devices WHERE name = ?', name).toArray().length > 0;
  }
}
