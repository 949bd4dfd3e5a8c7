/**
 * Pairing requests (RFC 8628) in the Hub's SQLite storage. Owns the `pairings` table: one row per
 * request with the SHA-256 of its device code and of its user code (never the codes), the device
 * name and hostname the agent asked for, the client address it came from, whether it came with the
 * owner's ticket, its times, its status and the polling state. Owns the rate limits of pairing
 * (PAIRING_LIMITS, per account and per client address) through `rate-limits.ts`; a request with a
 * ticket (redeemed by the Hub first, `pairing-tickets.ts`) meets none of them, and takes no place
 * counted in them.
 *
 * Lifecycle: `start` -> pending; the owner `decide`s approved or denied, or `dismiss`es a pending
 * one (denied); the device may `cancel` its own request (cancelled: the page then says so and
 * nothing can approve it); the device's `poll` of an approved request creates the device and its
 * credential (`auth/devices.ts`) and deletes the row, so a device code and a user code each work
 * once. Rows past their expiry are swept on `start`.
 */
import { DeviceStore, type Device, type EnrolledDevice } from '../auth/devices.ts';
import {
  formatUserCode,
  hashSecret,
  newDeviceCode,
  newUserCode,
  normaliseUserCode,
  PAIRING_LIMITS,
  PAIRING_TTL_S,
  POLL_INTERVAL_S,
  pollVerdict,
  sameHash,
  SLOW_DOWN_STEP_S,
  type PairingStatus,
} from '../auth/pairing.ts';
import { RateLimits } from './rate-limits.ts';

const SCHEMA = `CREATE TABLE IF NOT EXISTS pairings (
  device_code_hash TEXT PRIMARY KEY,
  user_code_hash TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  hostname TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  status TEXT NOT NULL,
  interval_s INTEGER NOT NULL,
  last_poll_at INTEGER,
  client TEXT NOT NULL DEFAULT 'unknown',
  reserved INTEGER NOT NULL DEFAULT 0
)`;

const BUCKET_STARTS = 'pair:start';
const bucketClientStarts = (client: string): string => `pair:start:client:${client}`;
const BUCKET_WRONG_CODES = 'pair:wrong-code';

/** A new pairing request, as RFC 8628 §3.2 answers it (the route adds the URIs). */
export interface StartedPairing {
  device_code: string;
  user_code: string;
  expires_in: number;
  interval: number;
}

/**
 * A pending request as the owner's page shows it. Times are ISO 8601. `name` is what the device
 * asked for, `device_name` what it is named if approved now (`name-2` when another device has
 * `name`): what `vimrelay pair` then says it was paired as.
 */
export interface PairingView {
  user_code: string;
  name: string;
  device_name: string;
  hostname: string;
  requested_at: string;
  expires_at: string;
}

/** A waiting request as the owner's list shows it, with the id its Dismiss button names. Never its codes. */
export interface PendingView {
  /** The SHA-256 of its device code: identifies the row, useless for polling or approving. */
  id: string;
  /** What it asked to be named, and what it is named if approved now (PairingView). */
  name: string;
  device_name: string;
  hostname: string;
  /** The client address it came from (a rate-limit bucket name: IPv4, an IPv6 /64, or `unknown`). */
  client: string;
  /** It came with the owner's ticket. */
  reserved: boolean;
  requested_at: string;
  expires_at: string;
}

/**
 * Refused by a rate limit: retry after this many seconds. `scope` says whose limit: this client
 * address's, or the whole account's (pending requests waiting for the owner, starts a minute).
 */
export interface Limited {
  limited: true;
  retryAfterS: number;
  scope?: 'client' | 'account';
}

/** A request the device cancelled, as the owner's page shows it instead of Approve and Deny. */
export interface Cancelled {
  cancelled: true;
  request: PairingView;
}

/** The answer to a poll (RFC 8628 §3.5), or the device and credential, given once. */
export type PollResult =
  | { status: 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant' }
  | { status: 'approved'; credential: string; device: Device };

type Row = {
  device_code_hash: string;
  user_code_hash: string;
  name: string;
  hostname: string;
  created_at: number;
  expires_at: number;
  status: PairingStatus;
  interval_s: number;
  last_poll_at: number | null;
  client: string;
  reserved: number;
};

const iso = (ms: number): string => new Date(ms).toISOString();

export class PairingStore {
  private readonly limits: RateLimits;

  constructor(
    private readonly sql: SqlStorage,
    private readonly devices: DeviceStore,
  ) {
    sql.exec(SCHEMA);
    // Tables made before requests recorded their client address, or their ticket, gain the column.
    const columns = sql.exec<{ name: string }>('PRAGMA table_info(pairings)').toArray().map((c) => c.name);
    if (!columns.includes('client')) sql.exec("ALTER TABLE pairings ADD COLUMN client TEXT NOT NULL DEFAULT 'unknown'");
    if (!columns.includes('reserved')) sql.exec('ALTER TABLE pairings ADD COLUMN reserved INTEGER NOT NULL DEFAULT 0');
    this.limits = new RateLimits(this.sql);
  }

  /**
   * Starts a request for a device `name` on `hostname` from `client` (a client-address bucket), or
   * refuses it over a rate limit: this client's first (starts a minute, requests waiting), then the
   * account's. `reserved`: it came with the owner's ticket, which the caller has redeemed; no limit
   * refuses it, and it is counted in none.
   */
  async start(name: string, hostname: string, client: string, nowMs: number, reserved = false): Promise<StartedPairing | Limited> {
    const deviceCode = newDeviceCode();
    const userCode = newUserCode();
    const [deviceHash, userHash] = await Promise.all([hashSecret(deviceCode), hashSecret(userCode)]);
    // From here on synchronous: the checks, the count and the insert cannot interleave with
    // another request to this Durable Object.
    this.sql.exec('DELETE FROM pairings WHERE expires_at <= ?', nowMs);
    // A user-code collision among live requests is possible (20^8 codes, rare): draw again.
    if (this.sql.exec('SELECT 1 FROM pairings WHERE user_code_hash = ?', userHash).toArray().length > 0) return this.start(name, hostname, client, nowMs, reserved);
    if (!reserved) {
      const refused = this.overLimit(client, nowMs);
      if (refused) return refused;
      this.limits.hit(bucketClientStarts(client), nowMs);
      this.limits.hit(BUCKET_STARTS, nowMs);
    }
    this.sql.exec(
      `INSERT INTO pairings (device_code_hash, user_code_hash, name, hostname, created_at, expires_at, status, interval_s, client, reserved)
       VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
      deviceHash,
      userHash,
      name,
      hostname,
      nowMs,
      nowMs + PAIRING_TTL_S * 1000,
      POLL_INTERVAL_S,
      client,
      reserved ? 1 : 0,
    );
    return { device_code: deviceCode, user_code: formatUserCode(userCode), expires_in: PAIRING_TTL_S, interval: POLL_INTERVAL_S };
  }

  /** The limit an anonymous request from `client` is over at `nowMs`, or null: this client's first, then the account's. */
  private overLimit(client: string, nowMs: number): Limited | null {
    const mine = this.limits.check(bucketClientStarts(client), PAIRING_LIMITS.startsPerClientPerMinute, nowMs);
    if (!mine.ok) return { limited: true, retryAfterS: mine.retryAfterS, scope: 'client' };
    const mineWaiting = this.waiting('AND client = ?', client);
    if (mineWaiting.n >= PAIRING_LIMITS.maxPendingPerClient) return this.untilOldestExpires(mineWaiting.oldest, nowMs, 'client');
    const starts = this.limits.check(BUCKET_STARTS, PAIRING_LIMITS.startsPerMinute, nowMs);
    if (!starts.ok) return { limited: true, retryAfterS: starts.retryAfterS, scope: 'account' };
    const waiting = this.waiting('');
    if (waiting.n >= PAIRING_LIMITS.maxPending) return this.untilOldestExpires(waiting.oldest, nowMs, 'account');
    return null;
  }

  /** The pending, unexpired requests, oldest first, for the owner's list. */
  pending(nowMs: number): PendingView[] {
    return this.sql
      .exec<Row>("SELECT * FROM pairings WHERE status = 'pending' AND expires_at > ? ORDER BY created_at, device_code_hash", nowMs)
      .toArray()
      .map((row) => ({
        id: row.device_code_hash,
        name: row.name,
        device_name: this.devices.freeName(row.name),
        hostname: row.hostname,
        client: row.client,
        reserved: row.reserved === 1,
        requested_at: iso(row.created_at),
        expires_at: iso(row.expires_at),
      }));
  }

  /** The owner dismisses a pending request (its device is told `access_denied`); false when none has this id. */
  dismiss(id: string, nowMs: number): boolean {
    return this.sql.exec("UPDATE pairings SET status = 'denied' WHERE device_code_hash = ? AND status = 'pending' AND expires_at > ?", id, nowMs).rowsWritten > 0;
  }

  /** The owner dismisses every pending request; how many there were. */
  dismissAll(nowMs: number): number {
    return this.sql.exec("UPDATE pairings SET status = 'denied' WHERE status = 'pending' AND expires_at > ?", nowMs).rowsWritten;
  }

  /**
   * The device cancels its own request, proving it with its device code (`vimrelay pair` on
   * Ctrl-C): from now on the owner's page says it was cancelled and nothing can approve it, even if
   * it was approved and not yet collected. False when the code is unknown, used or expired.
   */
  async cancel(deviceCode: string, nowMs: number): Promise<boolean> {
    const hash = await hashSecret(deviceCode);
    const row = this.sql.exec<Row>('SELECT * FROM pairings WHERE device_code_hash = ? AND expires_at > ?', hash, nowMs).toArray()[0];
    if (!row || !sameHash(row.device_code_hash, hash)) return false;
    this.sql.exec("UPDATE pairings SET status = 'cancelled' WHERE device_code_hash = ?", hash);
    return true;
  }

  /** The anonymous requests waiting (a ticket's are in no count), and when the first of them expires. */
  private waiting(where: string, ...bindings: string[]): { n: number; oldest: number } {
    return this.sql
      .exec<{ n: number; oldest: number }>(`SELECT COUNT(*) AS n, COALESCE(MIN(expires_at), 0) AS oldest FROM pairings WHERE status = 'pending' AND reserved = 0 ${where}`, ...bindings)
      .one();
  }

  private untilOldestExpires(oldest: number, nowMs: number, scope: 'client' | 'account'): Limited {
    return { limited: true, retryAfterS: Math.max(1, Math.ceil((oldest - nowMs) / 1000)), scope };
  }

  /**
   * The pending, unexpired request with this user code, as typed by the owner. Undefined when
   * there is none (never saying whether it ever existed); a wrong code counts towards the
   * per-minute cap, and over it every lookup is refused until the window ends (RFC 8628 §5.1).
   */
  async find(typed: string, nowMs: number): Promise<PairingView | Cancelled | Limited | undefined> {
    const found = await this.liveByUserCode(typed, nowMs);
    if (!found || 'limited' in found) return found;
    return found.row.status === 'cancelled' ? { cancelled: true, request: this.view(found.row, found.code) } : this.view(found.row, found.code);
  }

  /**
   * Records the owner's decision on the pending request with this user code; a cancelled one is
   * left as it is and reported so; as `find` otherwise.
   */
  async decide(typed: string, approve: boolean, nowMs: number): Promise<PairingView | Cancelled | Limited | undefined> {
    const found = await this.liveByUserCode(typed, nowMs);
    if (!found || 'limited' in found) return found;
    if (found.row.status === 'cancelled') return { cancelled: true, request: this.view(found.row, found.code) };
    this.sql.exec("UPDATE pairings SET status = ? WHERE device_code_hash = ? AND status = 'pending'", approve ? 'approved' : 'denied', found.row.device_code_hash);
    return this.view(found.row, found.code);
  }

  /**
   * The device's poll with its device code (RFC 8628 §3.4/§3.5). Approved: creates the device and
   * its credential and forgets the request, so the credential is handed out exactly once.
   */
  async poll(deviceCode: string, nowMs: number): Promise<PollResult> {
    const hash = await hashSecret(deviceCode);
    const row = this.sql.exec<Row>('SELECT * FROM pairings WHERE device_code_hash = ?', hash).toArray()[0];
    if (!row || !sameHash(row.device_code_hash, hash)) return { status: 'invalid_grant' };
    const verdict = pollVerdict({ status: row.status, expiresAtMs: row.expires_at, lastPollMs: row.last_poll_at, intervalS: row.interval_s }, nowMs);
    switch (verdict) {
      case 'expired_token':
        this.sql.exec('DELETE FROM pairings WHERE device_code_hash = ?', hash);
        return { status: verdict };
      case 'invalid_grant':
        // Cancelled by the device: the row stays so that the owner's page can say so.
        return { status: verdict };
      case 'slow_down':
        // RFC 8628 §3.5: the interval MUST grow by 5 seconds for this and all later requests.
        this.sql.exec('UPDATE pairings SET interval_s = interval_s + ?, last_poll_at = ? WHERE device_code_hash = ?', SLOW_DOWN_STEP_S, nowMs, hash);
        return { status: verdict };
      case 'approved': {
        // Delete first: if creating the device failed, the code must still not work twice.
        this.sql.exec('DELETE FROM pairings WHERE device_code_hash = ?', hash);
        const enrolled: EnrolledDevice = await this.devices.enroll(row.name, row.hostname, nowMs);
        return { status: 'approved', credential: enrolled.credential, device: enrolled.device };
      }
      default:
        this.sql.exec('UPDATE pairings SET last_poll_at = ? WHERE device_code_hash = ?', nowMs, hash);
        return { status: verdict };
    }
  }

  /** The pending or cancelled, unexpired request with this user code; a miss counts as a wrong code. */
  private async liveByUserCode(typed: string, nowMs: number): Promise<{ row: Row; code: string } | Limited | undefined> {
    const code = normaliseUserCode(typed);
    const hash = code === null ? null : await hashSecret(code);
    // Synchronous from here: the cap check and the count of a miss cannot interleave.
    const over = this.limits.check(BUCKET_WRONG_CODES, PAIRING_LIMITS.wrongCodesPerMinute, nowMs);
    if (!over.ok) return { limited: true, retryAfterS: over.retryAfterS };
    const row =
      hash === null
        ? undefined
        : this.sql.exec<Row>("SELECT * FROM pairings WHERE user_code_hash = ? AND status IN ('pending', 'cancelled') AND expires_at > ?", hash, nowMs).toArray()[0];
    if (!row || hash === null || code === null || !sameHash(row.user_code_hash, hash)) {
      this.limits.hit(BUCKET_WRONG_CODES, nowMs);
      return undefined;
    }
    return { row, code };
  }

  private view(row: Row, code: string): PairingView {
    return {
      user_code: formatUserCode(code),
      name: row.name,
      device_name: this.devices.freeName(row.name),
      hostname: row.hostname,
      requested_at: iso(row.created_at),
      expires_at: iso(row.expires_at),
    };
  }
}
