/**
 * Client of the relay's device pairing endpoints (RFC 8628): asks for a user code, then polls
 * until the owner decides, honouring `interval` and `slow_down` (§3.5: +5 s for every later
 * request), and cancels the request when the user gives up (`POST /pair/cancel`, so that the code
 * can no longer be approved). Pure protocol: `cli/pair.ts` shows the code and the progress. Never
 * logs the device code or the credential.
 */
import { z } from 'zod';
import { localServerRefusal } from '../local/not-a-relay.ts';
import { readRelayAnswer, relayErrorText, relayFetch } from './fetch-failure.ts';

const Started = z.object({
  device_code: z.string().min(1),
  user_code: z.string().min(1),
  verification_uri: z.string().url(),
  verification_uri_complete: z.string().url(),
  expires_in: z.number().int().positive(),
  interval: z.number().int().positive().default(5),
});
export type StartedPairing = z.infer<typeof Started>;

const Granted = z.object({ credential: z.string().min(1), device: z.object({ id: z.string(), name: z.string() }) });
export type GrantedPairing = z.infer<typeof Granted>;

/** How pairing ended without a credential: the owner denied it, or it expired. */
export class PairingFailed extends Error {
  constructor(
    readonly reason: 'access_denied' | 'expired_token' | 'invalid_grant',
    message: string,
  ) {
    super(message);
  }
}

/**
 * RFC 8628 §3.1: asks the relay to pair a device named `name` on `hostname`, with the owner's
 * `ticket` from the relay's /pair page if given (it gets the request in past every pairing limit).
 */
export async function startPairing(relayUrl: string, name: string, hostname: string, ticket?: string): Promise<StartedPairing> {
  const res = await relayFetch(`${relayUrl}/pair/device`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, hostname, ...(ticket === undefined ? {} : { ticket }) }),
  });
  const text = await res.text();
  const local = localServerRefusal(relayUrl, res.status, text);
  if (local) throw local;
  // The relay says whose limit it is: this address's, or too many requests waiting for the owner.
  if (res.status === 429) throw new Error(`the relay is refusing pairing requests for now: ${relayErrorText(text)}`);
  if (!res.ok) throw new Error(`${relayUrl}/pair/device answered HTTP ${res.status}: ${relayErrorText(text)}`);
  return readRelayAnswer(`${relayUrl}/pair/device`, text, Started);
}

export interface PollOptions {
  /** Called before each wait, with the interval in seconds (grows on slow_down). */
  onWait?: (intervalS: number) => void;
  signal?: AbortSignal;
}

function jsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * RFC 8628 §3.4/§3.5: polls until the owner approves (the credential) or denies, or the request
 * expires (PairingFailed). Waits `interval` before each poll; `slow_down` adds 5 s for good.
 */
export async function pollPairing(relayUrl: string, started: StartedPairing, opts: PollOptions = {}): Promise<GrantedPairing> {
  let intervalS = started.interval;
  for (;;) {
    opts.onWait?.(intervalS);
    await sleep(intervalS * 1000, opts.signal);
    const res = await relayFetch(`${relayUrl}/pair/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: started.device_code }),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const text = await res.text();
    if (res.ok) return readRelayAnswer(`${relayUrl}/pair/token`, text, Granted);
    const error = z.object({ error: z.string() }).safeParse(jsonOrNull(text));
    if (!error.success) throw new Error(`${relayUrl}/pair/token answered HTTP ${res.status}`);
    switch (error.data.error) {
      case 'authorization_pending':
        continue;
      case 'slow_down':
        intervalS += 5;
        continue;
      case 'access_denied':
        throw new PairingFailed('access_denied', 'the owner denied this device');
      case 'expired_token':
        throw new PairingFailed('expired_token', 'the code expired before it was approved; run vimrelay pair again');
      case 'invalid_grant':
        throw new PairingFailed('invalid_grant', 'the relay no longer knows this pairing request; run vimrelay pair again');
      default:
        throw new Error(`${relayUrl}/pair/token answered ${error.data.error}`);
    }
  }
}

/**
 * Cancels the request (the user pressed Ctrl-C): from now on the owner's page says it was
 * cancelled and it cannot be approved. Resolves once the relay confirmed; throws when it could not
 * be told (RelayUnreachable) or does not know the request any more (used or expired).
 */
export async function cancelPairing(relayUrl: string, started: StartedPairing, timeoutMs: number): Promise<void> {
  const res = await relayFetch(`${relayUrl}/pair/cancel`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ device_code: started.device_code }),
    timeoutMs,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${relayUrl}/pair/cancel answered HTTP ${res.status}: ${relayErrorText(text)}`);
}
