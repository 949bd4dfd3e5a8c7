/**
 * `/admin/*`: the owner's API, authenticated by `Authorization: Bearer <OWNER_SECRET>`, or
 * `Basic` with OWNER_SECRET as the password (RFC 7617), whose user name OWNER_USER sets the owner's
 * attempts apart from everyone's guesses (the local launcher's way). Wrong secrets are throttled
 * per client address and for the account (429 with Retry-After, `hub/owner-guesses.ts`). Mints, lists, revokes and verifies access tokens, and creates, lists and revokes devices (the
 * Hub stores both). Validates request bodies with zod; every failure is `{error: {code, message}}`.
 *
 *   POST   /admin/tokens          {kind: "access", name, scopes?, ttl_seconds?} -> 201 minted token
 *   GET    /admin/tokens                                               -> 200 {tokens: [...]}
 *   DELETE /admin/tokens/:jti                                          -> 200 revocation | 404
 *   POST   /admin/tokens/verify   {token, kind}                        -> 200 {valid, reason?, claims?}
 *   POST   /admin/devices         {name, hostname?}                    -> 201 {device, credential}
 *   GET    /admin/devices                                              -> 200 {devices: [...]}
 *   DELETE /admin/devices/:id                                          -> 200 revocation | 404
 *
 * The dashboard and the pairing page use the owner's session instead and call the same Hub methods.
 */
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { ALL_SCOPES, PermissionClass } from '../../protocol/index.ts';
import { hubFor, OWNER_ACCOUNT } from '../account.ts';
import { bearerToken } from '../../protocol/http/bearer.ts';
import type { TokenKind } from '../auth/claims.ts';
import { basicCredentials } from '../auth/basic-owner.ts';
import { checkOwnerSecret } from '../auth/owner-check.ts';
import { revokePat } from '../auth/oauth.ts';
import { TOKEN_TTL } from '../auth/tokens.ts';
import { relayOrigin } from '../config.ts';
import { DeviceName, Hostname } from './names.ts';
import { readCapped } from '../http/body.ts';
import { jsonError, unauthorized } from '../http/responses.ts';
import type { AppEnv } from './types.ts';

/** Largest admin request body (bytes): tokens and names are small. */
const MAX_ADMIN_BODY_BYTES = 16 * 1024;

const Kind = z.enum(['access', 'device']) satisfies z.ZodType<TokenKind>;

const MintBody = z
  .object({
    // Devices are created with POST /admin/devices (or by pairing), never minted here.
    kind: z.literal('access', { message: 'only access tokens are minted here; create devices with POST /admin/devices' }),
    name: DeviceName,
    scopes: z.array(PermissionClass).min(1).optional(),
    ttl_seconds: z.number().int().min(1).max(TOKEN_TTL.max).optional(),
  })
  .strict();

const DeviceBody = z.object({ name: DeviceName, hostname: Hostname.optional() }).strict();

const VerifyBody = z.object({ kind: Kind, token: z.string().min(1).max(8192) }).strict();

const invalid = (message: string): Response => jsonError(400, 'INVALID_REQUEST', message);

/** Reads and validates a JSON body; a Response when it is missing, too large, not JSON or invalid. */
async function body<T>(c: Context<AppEnv>, schema: z.ZodType<T>): Promise<T | Response> {
  const read = await readCapped(c.req.raw, MAX_ADMIN_BODY_BYTES);
  if (!read.ok) return jsonError(413, 'PAYLOAD_TOO_LARGE', `The request body must not exceed ${MAX_ADMIN_BODY_BYTES} bytes.`);
  let json: unknown;
  try {
    json = JSON.parse(read.text);
  } catch {
    return invalid('The request body must be JSON.');
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : invalid(z.prettifyError(parsed.error));
}

export const admin = new Hono<AppEnv>();

admin.use('*', async (c, next) => {
  const secret = c.env.OWNER_SECRET;
  if (!secret) return jsonError(503, 'NOT_CONFIGURED', 'The admin API is off: OWNER_SECRET is not set on this relay.');
  const basic = basicCredentials(c.req.raw);
  const presented = bearerToken(c.req.header('Authorization')) ?? basic?.password ?? null;
  if (presented === null || presented === '') return unauthorized(null);
  const verdict = await checkOwnerSecret(c.env, c.req.raw, presented, secret, basic?.user ?? null);
  if (!verdict.ok && verdict.limited) {
    return jsonError(429, 'RATE_LIMITED', `Too many wrong owner secrets; try again in ${verdict.retryAfterS} seconds.`, { 'Retry-After': String(verdict.retryAfterS) });
  }
  if (!verdict.ok) return unauthorized('The owner secret does not match.');
  await next();
});

admin.post('/tokens', async (c) => {
  const req = await body(c, MintBody);
  if (req instanceof Response) return req;
  const minted = await hubFor(c.env).mintToken({
    kind: 'access',
    name: req.name,
    scopes: [...new Set(req.scopes ?? ALL_SCOPES)],
    ttlSeconds: req.ttl_seconds ?? TOKEN_TTL.accessDefault,
    origin: relayOrigin(c.env, c.req.url),
    subject: OWNER_ACCOUNT,
  });
  return c.json(minted, 201);
});

admin.get('/tokens', async (c) => c.json({ tokens: await hubFor(c.env).listTokens() }));

admin.post('/tokens/verify', async (c) => {
  const req = await body(c, VerifyBody);
  if (req instanceof Response) return req;
  const verdict = await hubFor(c.env).verifyToken(req.token, req.kind, relayOrigin(c.env, c.req.url));
  return c.json(verdict.valid ? { valid: true, claims: verdict.claims } : { valid: false, reason: verdict.reason });
});

admin.delete('/tokens/:jti', async (c) => {
  const revoked = await revokePat(c.env, c.req.param('jti'));
  if (!revoked) return jsonError(404, 'NOT_FOUND', 'No token has this jti.');
  return c.json(revoked);
});

admin.post('/devices', async (c) => {
  const req = await body(c, DeviceBody);
  if (req instanceof Response) return req;
  return c.json(await hubFor(c.env).enrollDevice(req.name, req.hostname ?? null), 201, { 'Cache-Control': 'no-store' });
});

admin.get('/devices', async (c) => c.json({ devices: await hubFor(c.env).listDevices() }));

admin.delete('/devices/:id', async (c) => {
  const revoked = await hubFor(c.env).revokeDevice(c.req.param('id'));
  if (!revoked) return jsonError(404, 'NOT_FOUND', 'No device has this id.');
  return c.json(revoked);
});
