/**
 * Device pairing, RFC 8628 (OAuth 2.0 Device Authorization Grant) adapted to devices:
 *
 *   POST /pair/device   {name, hostname, ticket?} (JSON or form) -> 200 §3.2 response | 429 Retry-After
 *                       | 400 BAD_TICKET (a ticket unknown, used or expired)
 *   POST /pair/token    {device_code} (form or JSON)      -> 200 {credential, device} | 400 §3.5 error
 *   POST /pair/cancel   {device_code} (form or JSON)      -> 200 {cancelled: true} | 400 invalid_grant
 *   GET  /pair[?code=]  the owner's page: type a code (and the requests waiting), or review the
 *                       request with that code (410 when its device cancelled it)
 *   POST /pair/approve, /pair/deny   {csrf, code}        -> the outcome page
 *   POST /pair/dismiss  {csrf, id | all}                  -> 303 /pair
 *   POST /pair/ticket   {csrf}                            -> a page with a ticket for the owner's own
 *                       pairing, which no pairing limit refuses (hub/pairing-tickets.ts)
 *
 * The device endpoints are public (the codes are the secrets, stored hashed in the Hub); the
 * device proves it owns a request by its device code to cancel it, as it does to poll (RFC 8628
 * §3.4). The pages need the owner's session and every form is CSRF-checked. Rate limits live in
 * the Hub, per client address and for the account.
 */
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { hubFor } from '../account.ts';
import { relayOrigin } from '../config.ts';
import { readCapped } from '../http/body.ts';
import { clientAddress } from '../http/client-address.ts';
import { jsonError } from '../http/responses.ts';
import { checkedForm, requireSession, type SessionEnv } from '../http/session-guard.ts';
import { cancelledPage, codeEntryPage, decidedPage, limitedPage, notFoundPage, requestPage, ticketPage } from '../pages/pair.ts';
import { DeviceName, Hostname } from './names.ts';

/** Largest body of the device endpoints (bytes). */
const MAX_PAIR_BODY_BYTES = 4 * 1024;

/** RFC 8628 §3.4 `grant_type`. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

// Unknown fields (a `client_id`, §3.1) are ignored.
const StartBody = z.object({ name: DeviceName, hostname: Hostname, ticket: z.string().min(1).max(200).optional() });
const PollBody = z.object({ device_code: z.string().min(1).max(200), grant_type: z.string().optional() });

/** The body as an object of strings: JSON, or a form (RFC 8628 §3.1/§3.4 use forms); null if neither. */
async function params(c: Context): Promise<Record<string, unknown> | Response | null> {
  const read = await readCapped(c.req.raw, MAX_PAIR_BODY_BYTES);
  if (!read.ok) return jsonError(413, 'PAYLOAD_TOO_LARGE', `The request body must not exceed ${MAX_PAIR_BODY_BYTES} bytes.`);
  if ((c.req.header('Content-Type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    return Object.fromEntries(new URLSearchParams(read.text));
  }
  try {
    const json: unknown = JSON.parse(read.text);
    return typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** An RFC 6749 §5.2 error response (which RFC 8628 §3.5 extends), never cached. */
function grantError(error: string, description: string): Response {
  return new Response(JSON.stringify({ error, error_description: description }), {
    status: 400,
    headers: { 'Content-Type': 'application/json', ...NO_STORE },
  });
}

const POLL_ERRORS = {
  authorization_pending: 'The owner has not approved this device yet.',
  slow_down: 'Polling too fast: wait 5 seconds more between requests.',
  access_denied: 'The owner denied this device.',
  expired_token: 'The pairing request expired; start again.',
  invalid_grant: 'This device code is unknown or was already used.',
} as const;

export const pair = new Hono<SessionEnv>();

pair.post('/device', async (c) => {
  const body = await params(c);
  if (body instanceof Response) return body;
  const parsed = StartBody.safeParse(body ?? {});
  if (!parsed.success) return jsonError(400, 'INVALID_REQUEST', z.prettifyError(parsed.error));
  const started = await hubFor(c.env).startPairing(parsed.data.name, parsed.data.hostname, clientAddress(c.req.raw), parsed.data.ticket ?? null);
  const verification = `${relayOrigin(c.env, c.req.url)}/pair`;
  if ('badTicket' in started) {
    return jsonError(400, 'BAD_TICKET', `This pairing ticket is unknown, used or expired; get a new one at ${verification} (Pair a machine of yours).`);
  }
  if ('limited' in started) {
    const message =
      started.scope === 'client'
        ? `Too many pairing requests from this address; try again in ${started.retryAfterS} seconds, or pair with a ticket from ${verification}.`
        : `Too many pairing requests are waiting for the owner, who can dismiss them at ${verification}, or get a ticket there that pairs past them; or try again in ${started.retryAfterS} seconds.`;
    return jsonError(429, 'RATE_LIMITED', message, { 'Retry-After': String(started.retryAfterS) });
  }
  // RFC 8628 §3.2.
  return c.json(
    {
      device_code: started.device_code,
      user_code: started.user_code,
      verification_uri: verification,
      verification_uri_complete: `${verification}?code=${started.user_code}`,
      expires_in: started.expires_in,
      interval: started.interval,
    },
    200,
    NO_STORE,
  );
});

pair.post('/token', async (c) => {
  const body = await params(c);
  if (body instanceof Response) return body;
  const parsed = PollBody.safeParse(body ?? {});
  if (!parsed.success) return grantError('invalid_request', 'Send device_code.');
  if (parsed.data.grant_type !== undefined && parsed.data.grant_type !== DEVICE_CODE_GRANT) {
    return grantError('unsupported_grant_type', `grant_type must be ${DEVICE_CODE_GRANT}.`);
  }
  const result = await hubFor(c.env).pollPairing(parsed.data.device_code);
  if (result.status !== 'approved') return grantError(result.status, POLL_ERRORS[result.status]);
  return c.json({ credential: result.credential, device: result.device }, 200, NO_STORE);
});

// RFC 8628 defines no cancellation; this follows RFC 7009's shape (the secret that proves the
// request, posted as a form or JSON) so that an interrupted `vimrelay pair` leaves nothing to approve.
pair.post('/cancel', async (c) => {
  const body = await params(c);
  if (body instanceof Response) return body;
  const parsed = PollBody.safeParse(body ?? {});
  if (!parsed.success) return grantError('invalid_request', 'Send device_code.');
  if (!(await hubFor(c.env).cancelPairing(parsed.data.device_code))) return grantError('invalid_grant', POLL_ERRORS.invalid_grant);
  return c.json({ cancelled: true }, 200, NO_STORE);
});

pair.get('/', requireSession, async (c) => {
  const code = c.req.query('code');
  if (code === undefined || code.trim() === '') return codeEntryPage(c.var.csrf, await hubFor(c.env).pendingPairings(), Date.now());
  const found = await hubFor(c.env).findPairing(code);
  if (found === undefined) return notFoundPage(c.var.csrf);
  if ('limited' in found) return limitedPage(found.retryAfterS, c.var.csrf);
  if ('cancelled' in found) return cancelledPage(found.request, c.var.csrf);
  return requestPage(found, c.var.csrf);
});

pair.post('/dismiss', requireSession, async (c) => {
  const form = await checkedForm(c);
  if (form instanceof Response) return form;
  const id = form.get('id');
  await hubFor(c.env).dismissPairings(form.get('all') === '1' ? null : typeof id === 'string' ? id : '');
  return new Response(null, { status: 303, headers: { Location: '/pair', 'Cache-Control': 'no-store' } });
});

pair.post('/ticket', requireSession, async (c) => {
  const form = await checkedForm(c);
  if (form instanceof Response) return form;
  const issued = await hubFor(c.env).issuePairingTicket();
  return ticketPage(issued, relayOrigin(c.env, c.req.url), c.var.csrf);
});

for (const [path, approve] of [['/approve', true], ['/deny', false]] as const) {
  pair.post(path, requireSession, async (c) => {
    const form = await checkedForm(c);
    if (form instanceof Response) return form;
    const code = form.get('code');
    const decided = await hubFor(c.env).decidePairing(typeof code === 'string' ? code : '', approve);
    if (decided === undefined) return notFoundPage(c.var.csrf);
    if ('limited' in decided) return limitedPage(decided.retryAfterS, c.var.csrf);
    if ('cancelled' in decided) return cancelledPage(decided.request, c.var.csrf);
    return decidedPage(decided, approve, c.var.csrf);
  });
}
