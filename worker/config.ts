/**
 * Configuration: reads the optional Worker variables (wrangler.toml `[vars]`) into typed values
 * with their defaults. Pure: takes the variables and, where a default depends on it, the request
 * URL. Owns no bindings; `env.ts` declares those.
 */
import { LIMITS } from '../protocol/index.ts';

/** The optional string variables this Worker reads. Unset or empty means "use the default". */
export interface Vars {
  /** Issuer and audience base, e.g. `https://relay.example.com`. Default: the request's origin. */
  readonly PUBLIC_URL?: string;
  /** Deadline of one tool call in milliseconds. Default: `LIMITS.callDeadlineMs`. */
  readonly CALL_DEADLINE_MS?: string;
  /** Comma-separated browser origins allowed to call `/mcp`, besides the built-in ones. */
  readonly ALLOWED_ORIGINS?: string;
  /**
   * Set (to `1`) by the local launcher only (scripts/relay-process.ts): this Worker runs in local
   * workerd, reached over plain HTTP on loopback, and a request's URL must agree with its Host
   * header (http/host.ts). Never set on Cloudflare.
   */
  readonly LOCAL_RELAY?: string;
}

/**
 * The origin that names this relay in tokens: `iss`, and the base of `aud`.
 * PUBLIC_URL's origin when set (path and trailing slash dropped), else the request's origin.
 */
export function relayOrigin(vars: Vars, requestUrl: string): string {
  const configured = vars.PUBLIC_URL?.trim();
  return new URL(configured ? configured : requestUrl).origin;
}

/** Deadline of one tool call (ms): CALL_DEADLINE_MS when it is a positive integer, else the default. */
export function callDeadlineMs(vars: Vars): number {
  const raw = vars.CALL_DEADLINE_MS?.trim();
  if (!raw) return LIMITS.callDeadlineMs;
  const ms = Number(raw);
  return Number.isInteger(ms) && ms > 0 ? ms : LIMITS.callDeadlineMs;
}

/** ALLOWED_ORIGINS as a list of normalised origins; entries that are not URLs are ignored. */
export function extraAllowedOrigins(vars: Vars): string[] {
  const out: string[] = [];
  for (const entry of (vars.ALLOWED_ORIGINS ?? '').split(',')) {
    const trimmed = entry.trim();
    if (!trimmed) continue;
    try {
      out.push(new URL(trimmed).origin);
    } catch {
      // Not a URL: ignore rather than fail every request because of one typo.
    }
  }
  return out;
}
