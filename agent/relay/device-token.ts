/**
 * The agent's short-lived device JWTs: trades the device credential for one at the relay's
 * `POST /agent/token` and hands it to each connection attempt. A JWT is reused while it has more
 * than `refreshBeforeMs` left and replaced before that, so a reconnect never presents an expired
 * one. Never logs the credential or a token.
 */
import { z } from 'zod';
import { readRelayAnswer, relayErrorText, relayFetch } from './fetch-failure.ts';

/** The relay refused the credential itself (401/403): unknown or revoked. Retrying cannot help. */
export class CredentialRefused extends Error {
  constructor(readonly status: number) {
    super(`the relay refused this device's credential (HTTP ${status})`);
  }
}

/** The relay answered `/agent/token` with another error status (`status`): it is up, and refusing. */
export class RelayAnswered extends Error {
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(`/agent/token answered HTTP ${status}: ${detail}`);
  }
}

const TokenResponse = z.object({ token: z.string().min(1), expires_in: z.number().int().positive() });

/** A JWT for one connection attempt; `fresh` when it was fetched for this attempt. */
export interface DeviceJwt {
  token: string;
  fresh: boolean;
}

export interface DeviceTokensOptions {
  relayUrl: string;
  credential: string;
  /** Replace a JWT this long before it expires (default 60 s). */
  refreshBeforeMs?: number;
  /** Bound on one request to the relay (default 15 s). */
  timeoutMs?: number;
}

export class DeviceTokens {
  readonly #opts: DeviceTokensOptions;
  #current: { token: string; expiresAtMs: number } | undefined;

  constructor(opts: DeviceTokensOptions) {
    this.#opts = opts;
  }

  /**
   * A device JWT with time to spare. Throws CredentialRefused when the relay refuses the
   * credential, RelayAnswered for another error status, RelayUnreachable (`fetch-failure.ts`,
   * saying why) when it cannot be reached, another Error (`readRelayAnswer`) when it answers garbage.
   */
  async get(): Promise<DeviceJwt> {
    const spare = this.#opts.refreshBeforeMs ?? 60_000;
    if (this.#current && this.#current.expiresAtMs - Date.now() > spare) return { token: this.#current.token, fresh: false };
    const url = `${this.#opts.relayUrl.replace(/\/+$/, '')}/agent/token`;
    const res = await relayFetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${this.#opts.credential}` },
      ...(this.#opts.timeoutMs === undefined ? {} : { timeoutMs: this.#opts.timeoutMs }),
    });
    const text = await res.text();
    if (res.status === 401 || res.status === 403) throw new CredentialRefused(res.status);
    if (!res.ok) throw new RelayAnswered(res.status, relayErrorText(text));
    const parsed = readRelayAnswer(url, text, TokenResponse);
    this.#current = { token: parsed.token, expiresAtMs: Date.now() + parsed.expires_in * 1000 };
    return { token: parsed.token, fresh: true };
  }

  /** Forgets the current JWT (the relay refused it), so that the next `get` fetches a new one. */
  invalidate(): void {
    this.#current = undefined;
  }
}
