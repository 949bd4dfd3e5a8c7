/**
 * `/admin/*`: the owner's token API, authenticated by `Authorization: Bearer <OWNER_SECRET>`.
 * Mints, lists, revokes and verifies device and access tokens (the Hub stores them). Validates
 * request bodies with zod; every failure is `{error: {code, message}}`.
 *
 *   POST   /admin/tokens          {kind, name, scopes?, ttl_seconds?}  -> 201 minted token
 *   GET    /admin/tokens                                               -> 200 {tokens: [...]}
 *   DELETE /admin/tokens/:jti                                          -> 200 revocation | 404
 *   POST   /admin/tokens/verify   {token, kind}                        -> 200 {valid, reason?, claims?}
 *
 * The dashboard and device pairing (later) replace the owner-secret bearer with a session and
 * call the same Hub methods.
 */
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { ALL_SCOPES, PermissionClass } from '../../protocol/index.ts';
import { hubFor, OWNER_ACCOUNT } from '../account.ts';
import { bearerToken } from '../../protocol/http/bearer.ts';
import type { TokenKind } from '../auth/claims.ts';
import { MAX_DEVICE_NAME } from '../auth/devices.ts';
import { ownerSecretMatches } from '../auth/owner.ts';
import { TOKEN_TTL } from '../auth/tokens.ts';
import { relayOrigin } from '../config.ts';
import { readCapped } from '../http/body.ts';
import { jsonError, unauthorized } from '../http/responses.ts';
import type { AppEnv } from './types.ts';

/** Largest admin request body (bytes): tokens and names are small. */
const MAX_ADMIN_BODY_BYTES = 16 * 1024;

const Kind = z.enum(['access', 'device']) satisfies z.ZodType<TokenKind>;

// Names end up in editor ids (`<device>/<editor>`) and client ids (`pat:<name>`): no control
// characters and no `/`.
const Name = z
  .string()
  .min(1)
  .max(MAX_DEVICE_NAME)
  .refine((name) => ![...name].some((ch) => ch === '/' || ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f), {
    message: 'must not contain control characters or "/"',
  });

const MintBody = z
  .object({
    kind: Kind,
    name: Name,
    scopes: z.array(PermissionClass).min(1).optional(),
    ttl_seconds: z.number().int().min(1).max(TOKEN_TTL.max).optional(),
  })
  .strict()
  .refine((b) => b.kind === 'access' || b.scopes === undefined, { message: 'scopes apply to access tokens only', path: ['scopes'] });

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
  const presented = bearerToken(c.req.header('Authorization'));
  if (presented === null) return unauthorized(null);
  if (!(await ownerSecretMatches(presented, secret))) return unauthorized('The owner secret does not match.');
  await next();
});

admin.post('/tokens', async (c) => {
  const req = await body(c, MintBody);
  if (req instanceof Response) return req;
  const scopes = req.kind === 'access' ? [...new Set(req.scopes ?? ALL_SCOPES)] : [];
  const minted = await hubFor(c.env).mintToken({
    kind: req.kind,
    name: req.name,
    scopes,
    ttlSeconds: req.ttl_seconds ?? (req.kind === 'device' ? TOKEN_TTL.deviceDefault : TOKEN_TTL.accessDefault),
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
  const revoked = await hubFor(c.env).revokeToken(c.req.param('jti'));
  if (!revoked) return jsonError(404, 'NOT_FOUND', 'No token has this jti.');
  return c.json(revoked);
});
