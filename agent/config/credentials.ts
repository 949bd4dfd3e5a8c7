/**
 * Credentials per relay, kept in `credentials.json` (mode 0600):
 * `{ "relays": { "<relay url>": { "device_credential"?: "vrd_...", "access_token"?: "..." } } }`.
 * The device credential (from `vimrelay pair` or `vimrelay enroll`) buys the agent short-lived
 * JWTs to connect with; the access token is the local MCP token that the launcher prints.
 * A file someone else could have written is refused (own-file.ts). Secrets are never logged.
 * Older files held a `device_token` instead, which no longer works: it is ignored, and
 * `vimrelay agent` says to pair again.
 */
import { z } from 'zod';
import { readOwnFile } from './own-file.ts';
import { writePrivateFile } from './private-file.ts';
import { normaliseRelayUrl } from './relay-url.ts';

const RelayCredentials = z.object({
  device_credential: z.string().optional(),
  access_token: z.string().optional(),
});
export type RelayCredentials = z.infer<typeof RelayCredentials>;

const CredentialsFile = z.object({ relays: z.record(z.string(), RelayCredentials) });
type CredentialsFile = z.infer<typeof CredentialsFile>;

/** The file's credentials (none when absent); throws when it is invalid or not the user's alone (own-file.ts). */
export function readCredentials(file: string): CredentialsFile {
  const text = readOwnFile(file);
  if (text === undefined) return { relays: {} };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  const parsed = CredentialsFile.safeParse(json);
  if (!parsed.success) throw new Error(`${file} is not a valid credentials file: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

export function relayCredentials(file: string, relayUrl: string): RelayCredentials {
  return readCredentials(file).relays[normaliseRelayUrl(relayUrl)] ?? {};
}

/** Merges `update` into the relay's entry and rewrites the file atomically, 0600. */
export function saveRelayCredentials(file: string, relayUrl: string, update: RelayCredentials): void {
  const all = readCredentials(file);
  const key = normaliseRelayUrl(relayUrl);
  all.relays[key] = { ...all.relays[key], ...update };
  writePrivateFile(file, JSON.stringify(all, null, 2) + '\n');
}

/** The only relay with a device credential, for `vimrelay agent` without `--relay`. */
export function defaultRelay(file: string): string | undefined {
  const withDevice = Object.entries(readCredentials(file).relays).filter(([, c]) => c.device_credential);
  return withDevice.length === 1 ? withDevice[0]?.[0] : undefined;
}
