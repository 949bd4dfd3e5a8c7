/**
 * Client of the relay's owner-only admin routes (`/admin/tokens`), authenticated with the owner
 * secret. Used by `vimrelay enroll`, `vimrelay token create` and the local launcher.
 */
import { z } from 'zod';
import { PermissionClass } from '../../protocol/index.ts';

export const MintedToken = z.object({
  token: z.string(),
  jti: z.string(),
  kind: z.enum(['device', 'access']),
  name: z.string(),
  scopes: z.array(z.string()),
  expires_at: z.string(),
});
export type MintedToken = z.infer<typeof MintedToken>;

export interface MintRequest {
  kind: 'device' | 'access';
  name: string;
  scopes?: PermissionClass[];
  ttl_seconds?: number;
}

export class AdminError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

async function adminFetch(relayUrl: string, ownerSecret: string, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(relayUrl.replace(/\/+$/, '') + path, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ownerSecret}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new AdminError(`${path} answered HTTP ${res.status}: ${text.slice(0, 300)}`, res.status);
  return JSON.parse(text);
}

/** Mints a device credential or a personal access token. */
export async function mintToken(relayUrl: string, ownerSecret: string, req: MintRequest): Promise<MintedToken> {
  return MintedToken.parse(await adminFetch(relayUrl, ownerSecret, '/admin/tokens', req));
}

/** Whether a stored token is still accepted by the relay (signature, expiry, revocation). */
export async function tokenIsValid(
  relayUrl: string,
  ownerSecret: string,
  token: string,
  kind: MintRequest['kind'],
): Promise<boolean> {
  const res = z.object({ valid: z.boolean() }).parse(await adminFetch(relayUrl, ownerSecret, '/admin/tokens/verify', { token, kind }));
  return res.valid;
}
