/**
 * Client of the relay's owner-only admin routes (`/admin/tokens`, `/admin/devices`),
 * authenticated with the owner secret (and the relay's OWNER_USER, where the caller knows it).
 * Used by `vimrelay enroll`, `vimrelay token create`,
 * `vimrelay devices` and the local launcher. Never logs the secret or what it mints. Failures say
 * what happened: the relay unreachable (`fetch-failure.ts`), the secret refused, guesses
 * throttled, no secret configured, an answer that is not the relay's.
 */
import { z } from 'zod';
import { PermissionClass } from '../../protocol/tool.ts';
import { localServerRefusal } from '../local/not-a-relay.ts';
import { readRelayAnswer, relayErrorText, relayFetch } from './fetch-failure.ts';

export const MintedToken = z.object({
  token: z.string(),
  jti: z.string(),
  kind: z.literal('access'),
  name: z.string(),
  scopes: z.array(z.string()),
  expires_at: z.string(),
});
export type MintedToken = z.infer<typeof MintedToken>;

/** A personal access token to mint. */
export interface MintRequest {
  kind: 'access';
  name: string;
  scopes?: PermissionClass[];
  ttl_seconds?: number;
}

const DeviceRef = z.object({ id: z.string(), name: z.string() });

export const EnrolledDevice = z.object({ device: DeviceRef, credential: z.string() });
export type EnrolledDevice = z.infer<typeof EnrolledDevice>;

export const DeviceRecord = z.object({
  id: z.string(),
  name: z.string(),
  hostname: z.string().nullable(),
  created_at: z.string(),
  last_seen_at: z.string().nullable(),
  online: z.boolean(),
  revoked_at: z.string().nullable(),
  revoked: z.boolean(),
  /** The last connection refused as the device for want of its agent's takeover key; absent from relays before takeover keys. */
  last_refused_at: z.string().nullable().optional(),
  last_refused_from: z.string().nullable().optional(),
});
export type DeviceRecord = z.infer<typeof DeviceRecord>;

export class AdminError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The relay's own error code in an admin answer's body (`{error: {code}}`), if it is one. */
function relayErrorCode(text: string): string | undefined {
  try {
    const code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What an admin answer other than 2xx means, for the person at the terminal. Only the relay's own
 * codes (worker/routes/admin.ts) are read as a verdict on the secret: the same status from
 * anything else (a proxy in front, a runtime out of resources) is shown as it came.
 */
function refusal(path: string, res: Response, text: string): string {
  switch (`${res.status} ${relayErrorCode(text) ?? ''}`) {
    case '401 UNAUTHORIZED':
      return 'the relay refused the owner secret: VIMRELAY_OWNER_SECRET is not its OWNER_SECRET';
    case '429 RATE_LIMITED':
      return `the relay is refusing owner secrets for ${res.headers.get('Retry-After') ?? 'a few'} seconds after too many wrong ones; wait, then check VIMRELAY_OWNER_SECRET`;
    case '503 NOT_CONFIGURED':
      return 'the relay has no OWNER_SECRET set, so its admin API is off (wrangler secret put OWNER_SECRET)';
    default:
      return `${path} answered HTTP ${res.status}: ${relayErrorText(text)}`;
  }
}

/**
 * The owner's credentials: the owner secret alone (sent as a bearer token), or with the relay's
 * OWNER_USER (sent as HTTP Basic), which sets the owner's attempts apart from anyone's wrong
 * guesses, so that they cannot hold the owner out (the local relay: every caller is 127.0.0.1).
 */
export type OwnerCredentials = string | { user: string; secret: string };

function ownerAuthorization(owner: OwnerCredentials): string {
  if (typeof owner === 'string') return `Bearer ${owner}`;
  return `Basic ${Buffer.from(`${owner.user}:${owner.secret}`, 'utf8').toString('base64')}`;
}

async function adminFetch<T>(schema: z.ZodType<T>, relayUrl: string, owner: OwnerCredentials, method: string, path: string, body?: unknown): Promise<T> {
  const url = relayUrl.replace(/\/+$/, '') + path;
  const res = await relayFetch(url, {
    method,
    headers: { Authorization: ownerAuthorization(owner), 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const local = localServerRefusal(url, res.status, text);
  if (local) throw local;
  if (!res.ok) throw new AdminError(refusal(path, res, text), res.status);
  return readRelayAnswer(url, text, schema);
}

/** Mints a personal access token. */
export async function mintToken(relayUrl: string, owner: OwnerCredentials, req: MintRequest): Promise<MintedToken> {
  return adminFetch(MintedToken, relayUrl, owner, 'POST', '/admin/tokens', req);
}

/** Whether a stored access token is still accepted by the relay (signature, expiry, revocation). */
export async function tokenIsValid(relayUrl: string, owner: OwnerCredentials, token: string): Promise<boolean> {
  const res = await adminFetch(z.object({ valid: z.boolean() }), relayUrl, owner, 'POST', '/admin/tokens/verify', { token, kind: 'access' });
  return res.valid;
}

/** Creates a device and its credential directly, without pairing. */
export async function createDevice(relayUrl: string, owner: OwnerCredentials, name: string, hostname?: string): Promise<EnrolledDevice> {
  return adminFetch(EnrolledDevice, relayUrl, owner, 'POST', '/admin/devices', { name, ...(hostname === undefined ? {} : { hostname }) });
}

/** Every device of the relay's account. */
export async function listDevices(relayUrl: string, owner: OwnerCredentials): Promise<DeviceRecord[]> {
  return (await adminFetch(z.object({ devices: z.array(DeviceRecord) }), relayUrl, owner, 'GET', '/admin/devices')).devices;
}

/** Revokes a device: it is disconnected at once and its credential stops working. */
export async function revokeDevice(relayUrl: string, owner: OwnerCredentials, id: string): Promise<{ device: { id: string; name: string }; disconnected: number }> {
  return adminFetch(z.object({ device: DeviceRef, disconnected: z.number() }), relayUrl, owner, 'DELETE', `/admin/devices/${encodeURIComponent(id)}`);
}
