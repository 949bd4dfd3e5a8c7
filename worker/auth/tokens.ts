/**
 * Token minting, verification, listing and revocation over the Hub's SQLite storage. Owns the
 * `tokens` table: every access token ever minted is recorded by jti, so that verification can
 * refuse unknown and revoked tokens (a JWT's signature alone cannot be revoked).
 *
 * Device JWTs are different: short-lived (DEVICE_JWT_TTL_S), minted for a device credential at
 * each connect (`mintDeviceJwt`) and not recorded; one is valid while its device is usable, so
 * revoking the device (`devices.ts`) refuses all of them at once. Sockets are not this module's
 * business: the Hub disconnects a revoked device.
 */
import type { PermissionClass } from '../../protocol/index.ts';
import { audienceFor, patClientId, type Checked, type Rejection, type TokenClaims, type TokenKind } from './claims.ts';
import { DeviceStore, type Device } from './devices.ts';
import { DEVICE_JWT_TTL_S } from './pairing.ts';
import { signToken, verifyToken } from './jwt.ts';
import { SigningKeys } from './keys.ts';

const DAY_S = 24 * 60 * 60;

/** Access token lifetimes (seconds): the default and the most anyone may ask for. */
export const TOKEN_TTL = {
  accessDefault: 90 * DAY_S,
  max: 365 * DAY_S,
} as const;

const SCHEMA = `CREATE TABLE IF NOT EXISTS tokens (
  jti TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  scopes TEXT NOT NULL,
  device_id TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  revoked_at INTEGER
)`;

/** An access token to mint. `subject` is the account. */
export interface MintRequest {
  kind: 'access';
  name: string;
  /** The scopes granted (already validated). */
  scopes: readonly PermissionClass[];
  ttlSeconds: number;
  /** Relay origin: becomes `iss` and the base of `aud`. */
  origin: string;
  subject: string;
}

/** A freshly minted token. The only time the token text is returned. */
export interface MintedToken {
  token: string;
  jti: string;
  kind: TokenKind;
  name: string;
  scopes: string[];
  expires_at: string;
  /** Always null: kept so that listings of tokens minted before device credentials keep their shape. */
  device: Device | null;
}

/** A short-lived device JWT for the `/agent` upgrade. */
export interface DeviceJwt {
  token: string;
  /** Seconds until it expires. */
  expires_in: number;
  device: Device;
}

/** A recorded token, without the token text. Times are ISO 8601 strings. */
export interface TokenRecord {
  jti: string;
  kind: TokenKind;
  name: string;
  scopes: string[];
  device: Device | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  status: 'active' | 'expired' | 'revoked';
}

/** The result of verifying a token: its claims (and device), or why it was refused. */
export type Verification =
  | { valid: true; claims: TokenClaims; device: Device | null }
  | { valid: false; reason: Rejection };

/** The result of a revocation. */
export interface Revocation {
  jti: string;
  kind: TokenKind;
  revoked_at: string;
}

type TokenRow = {
  jti: string;
  kind: string;
  name: string;
  scopes: string;
  device_id: string | null;
  device_name: string | null;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
};

const SELECT_ROWS = `SELECT t.jti, t.kind, t.name, t.scopes, t.device_id, d.name AS device_name,
  t.created_at, t.expires_at, t.revoked_at
  FROM tokens t LEFT JOIN devices d ON d.id = t.device_id`;

const iso = (ms: number): string => new Date(ms).toISOString();

export class TokenStore {
  private readonly keys: SigningKeys;
  readonly devices: DeviceStore;

  constructor(private readonly storage: DurableObjectStorage) {
    storage.sql.exec(SCHEMA);
    this.keys = new SigningKeys(storage.sql);
    this.devices = new DeviceStore(storage);
  }

  /** Mints and records an access token. */
  async mint(req: MintRequest, nowMs: number): Promise<MintedToken> {
    const key = await this.keys.get(nowMs);
    const jti = crypto.randomUUID();
    const iat = Math.floor(nowMs / 1000);
    const exp = iat + req.ttlSeconds;
    // The record ends exactly ttl seconds from now: `exp`, whole seconds (RFC 7519 §2), is up to a
    // second earlier, and a one-second token minted at x.999 s had a millisecond. The claim check
    // allows CLOCK_TOLERANCE_S (1 s) past `exp`, which covers that second: the record ends it.
    const expiresAtMs = nowMs + req.ttlSeconds * 1000;
    const scopes = [...req.scopes];
    const claims: TokenClaims = {
      iss: req.origin,
      aud: audienceFor('access', req.origin),
      sub: req.subject,
      exp,
      iat,
      jti,
      scope: scopes.join(' '),
      client_id: patClientId(req.name),
    };
    const token = await signToken('access', claims, key);
    this.storage.sql.exec(
      'INSERT INTO tokens (jti, kind, name, scopes, device_id, created_at, expires_at) VALUES (?, ?, ?, ?, NULL, ?, ?)',
      jti,
      'access',
      req.name,
      scopes.join(' '),
      nowMs,
      expiresAtMs,
    );
    return { token, jti, kind: 'access', name: req.name, scopes, expires_at: iso(expiresAtMs), device: null };
  }

  /**
   * A device JWT for `device` (`sub` = its id, `aud` = `<origin>/agent`), valid DEVICE_JWT_TTL_S
   * from `nowMs`. The caller has checked the device's credential.
   */
  async mintDeviceJwt(device: Device, origin: string, nowMs: number): Promise<DeviceJwt> {
    const key = await this.keys.get(nowMs);
    const iat = Math.floor(nowMs / 1000);
    const claims: TokenClaims = { iss: origin, aud: audienceFor('device', origin), sub: device.id, exp: iat + DEVICE_JWT_TTL_S, iat, jti: crypto.randomUUID() };
    return { token: await signToken('device', claims, key), expires_in: DEVICE_JWT_TTL_S, device };
  }

  /**
   * Verifies signature and claims (`jwt.ts`, `claims.ts`), then, for an access token, that its
   * jti is recorded and not revoked; for a device JWT, that its device (`sub`) is still usable.
   * `nowMs` is the verifier's clock.
   */
  async verify(token: string, kind: TokenKind, origin: string, nowMs: number): Promise<Verification> {
    const key = await this.keys.get(nowMs);
    const checked: Checked<TokenClaims> = await verifyToken(token, { kind, origin }, key, nowMs);
    if (!checked.ok) return { valid: false, reason: checked.reason };
    const claims = checked.value;
    if (kind === 'device') {
      const device = this.devices.usable(claims.sub);
      return device ? { valid: true, claims, device } : { valid: false, reason: 'revoked' };
    }
    const row = this.row(claims.jti);
    if (!row) return { valid: false, reason: 'unknown' };
    if (row.kind !== kind) return { valid: false, reason: 'wrong_type' };
    if (row.revoked_at !== null) return { valid: false, reason: 'revoked' };
    if (nowMs >= row.expires_at) return { valid: false, reason: 'expired' };
    return { valid: true, claims: boundByRecord(claims, row), device: null };
  }

  /**
   * Why the access token `jti` is no longer good at `nowMs` (its record gone, revoked or expired),
   * or null while it is: the record alone, for a token whose signature was verified already.
   */
  accessRefusal(jti: string, nowMs: number): Rejection | null {
    const row = this.row(jti);
    if (!row || row.kind !== 'access') return 'unknown';
    if (row.revoked_at !== null) return 'revoked';
    if (nowMs >= row.expires_at) return 'expired';
    return null;
  }

  /** Every recorded token, newest first, with its status at `nowMs`. Never the token text. */
  list(nowMs: number): TokenRecord[] {
    return this.storage.sql
      .exec<TokenRow>(`${SELECT_ROWS} ORDER BY t.created_at DESC, t.jti`)
      .toArray()
      .map((row) => record(row, nowMs));
  }

  /**
   * Revokes a token (idempotent: a second call reports the first revocation time).
   * Undefined when no token has this jti.
   */
  revoke(jti: string, nowMs: number): Revocation | undefined {
    const row = this.row(jti);
    if (!row) return undefined;
    let revokedAt = row.revoked_at;
    if (revokedAt === null) {
      revokedAt = nowMs;
      this.storage.sql.exec('UPDATE tokens SET revoked_at = ? WHERE jti = ?', revokedAt, jti);
    }
    return { jti, kind: row.kind as TokenKind, revoked_at: iso(revokedAt) };
  }

  private row(jti: string): TokenRow | undefined {
    return this.storage.sql.exec<TokenRow>(`${SELECT_ROWS} WHERE t.jti = ?`, jti).toArray()[0];
  }
}

/**
 * The claims of a verified access token as far as its record allows: the scopes recorded when its
 * jti was minted bound the `scope` claim (only scopes in both survive), the client id is the one
 * its recorded name gives, and `exp` is no later than the recorded expiry. The record, not the
 * signature, is the authority: whoever obtained the signing key could sign any claims under a
 * known jti, and must not turn a read-only token into an all-scope one.
 */
function boundByRecord(claims: TokenClaims, row: TokenRow): TokenClaims {
  const recorded = new Set(row.scopes ? row.scopes.split(' ') : []);
  const scope = (claims.scope ?? '')
    .split(' ')
    .filter((s) => s !== '' && recorded.has(s));
  return {
    ...claims,
    scope: [...new Set(scope)].join(' '),
    client_id: patClientId(row.name),
    exp: Math.min(claims.exp, Math.floor(row.expires_at / 1000)),
  };
}

function deviceOf(row: TokenRow): Device | null {
  return row.device_id !== null && row.device_name !== null ? { id: row.device_id, name: row.device_name } : null;
}

function record(row: TokenRow, nowMs: number): TokenRecord {
  const status = row.revoked_at !== null ? 'revoked' : nowMs >= row.expires_at ? 'expired' : 'active';
  return {
    jti: row.jti,
    kind: row.kind as TokenKind,
    name: row.name,
    scopes: row.scopes ? row.scopes.split(' ') : [],
    device: deviceOf(row),
    created_at: iso(row.created_at),
    expires_at: iso(row.expires_at),
    revoked_at: row.revoked_at === null ? null : iso(row.revoked_at),
    status,
  };
}
