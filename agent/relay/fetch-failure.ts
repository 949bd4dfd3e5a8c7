/**
 * Requests to the relay and what a failed one says. Every HTTP client of the agent and the CLI
 * (`admin.ts`, `pairing.ts`, `device-token.ts`) sends through `relayFetch`, which bounds the wait
 * and turns Node's bare "fetch failed" into what really happened and what to do: "cannot reach the
 * relay at http://127.0.0.1:8787: connection refused; is the relay running at that address?".
 * The causes come from Node's fetch (undici): the `code` of the socket, DNS or TLS error it wraps.
 * A 2xx answer that is not the relay's JSON (a web page, a login proxy in front of it) says that
 * too (`readRelayAnswer`), never a parser's complaint. Never puts a request's headers or body
 * (credentials, the owner secret) in a message.
 */
import type { z } from 'zod';

/** The relay could not be reached, or did not answer in time: nothing was received. */
export class RelayUnreachable extends Error {
  constructor(
    message: string,
    /** The underlying error code (`ECONNREFUSED`, `ENOTFOUND`, `TIMEOUT`, ...), for callers that branch on it. */
    readonly code: string,
  ) {
    super(message);
    this.name = 'RelayUnreachable';
  }
}

/** Default bound on one request to the relay. */
const RELAY_TIMEOUT_MS = 15_000;

type Described = { code: string; what: string };

const TLS_CODES: Readonly<Record<string, string>> = {
  ERR_SSL_WRONG_VERSION_NUMBER: 'it does not speak TLS at that address (an http:// relay?)',
  EPROTO: 'it does not speak TLS at that address (an http:// relay?)',
  CERT_HAS_EXPIRED: 'its certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its certificate chain ends in a self-signed certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate cannot be verified',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the issuer of its certificate is not trusted here',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate is for another host name',
};

/** The first error code inside `err` (its own, its cause's, or the first of an AggregateError's). */
function codeOf(err: unknown): { code: string | undefined; message: string } {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return { code, message: e.message };
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner) && inner[0] instanceof Error) return codeOf(inner[0]);
  }
  return { code: undefined, message: err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err) };
}

function describe(err: unknown, host: string, timeoutMs: number): Described {
  if (err instanceof Error && err.name === 'TimeoutError') return { code: 'TIMEOUT', what: `no answer within ${timeoutMs / 1000} s; is the relay up and reachable from here?` };
  const { code, message } = codeOf(err);
  switch (code) {
    case 'ECONNREFUSED':
      return { code, what: 'connection refused; is the relay running at that address and port?' };
    case 'ENOTFOUND':
      return { code, what: `no such host ${host} (DNS lookup failed); check the URL` };
    case 'EAI_AGAIN':
      return { code, what: `the DNS lookup of ${host} failed for now; check this machine's network` };
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return { code, what: 'the connection timed out; is the address right and the network up?' };
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return { code, what: 'the connection was closed before an answer came; is that address the relay?' };
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return { code, what: 'no route to that host; check this machine\'s network' };
    default:
      if (code !== undefined && TLS_CODES[code]) return { code, what: `TLS failed: ${TLS_CODES[code]}` };
      return { code: code ?? 'UNKNOWN', what: message };
  }
}

/** What a failed request to `url` says, as `cannot reach the relay at <origin>: <cause>; <what to do>`. */
function describeFetchFailure(err: unknown, url: string, timeoutMs: number = RELAY_TIMEOUT_MS): RelayUnreachable {
  const target = new URL(url);
  const { code, what } = describe(err, target.hostname, timeoutMs);
  return new RelayUnreachable(`cannot reach the relay at ${target.origin}: ${what}`, code);
}

/**
 * A failed connection to the relay at `url` as a log line says it: describeFetchFailure's message
 * (kept as it is for a RelayUnreachable already described) with the error code, for fetch and for
 * the agent's WebSocket alike.
 */
export function relayFailureText(err: unknown, url: string): string {
  const failure = err instanceof RelayUnreachable ? err : describeFetchFailure(err, url);
  return failure.code === 'UNKNOWN' ? failure.message : `${failure.message} (${failure.code})`;
}

export interface RelayFetchInit extends RequestInit {
  /** Bound on the whole request (default RELAY_TIMEOUT_MS). */
  timeoutMs?: number;
}

/**
 * `fetch` to the relay, bounded by `timeoutMs` (and `init.signal`, whose abort is passed on as it
 * is: the caller's own cancellation is not a failure of the relay). Throws RelayUnreachable when
 * nothing came back; any HTTP answer, errors included, is returned for the caller to read.
 */
export async function relayFetch(url: string, init: RelayFetchInit = {}): Promise<Response> {
  const { timeoutMs = RELAY_TIMEOUT_MS, signal, ...rest } = init;
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    return await fetch(url, { ...rest, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw describeFetchFailure(err, url, timeoutMs);
  }
}

/** The message of a relay's JSON error body (`{error: {message}}` or RFC 6749 `{error_description}`), else the text cut short. */
export function relayErrorText(body: string): string {
  try {
    const json = JSON.parse(body) as { error?: { message?: unknown } | unknown; error_description?: unknown };
    if (typeof json.error_description === 'string') return json.error_description;
    if (typeof json.error === 'object' && json.error !== null && typeof (json.error as { message?: unknown }).message === 'string') return (json.error as { message: string }).message;
  } catch {
    // Not JSON: the text itself.
  }
  return body.slice(0, 300);
}

/**
 * The JSON a relay answered `url` with, read by `schema`. Throws, naming the URL, when it is not
 * JSON or not of that shape: whatever answered is then most likely not a vimrelay relay.
 */
export function readRelayAnswer<T>(url: string, text: string, schema: z.ZodType<T>): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${url} answered, but not as a vimrelay relay does (not JSON); is the relay URL right?`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new Error(`${url} answered, but not as a vimrelay relay does (JSON of another shape); is the relay URL right?`);
  return parsed.data;
}
