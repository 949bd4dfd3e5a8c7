/**
 * The agent's takeover key (PROTOCOL.md "One agent per device"): 32 bytes from the CSPRNG,
 * base64url, in `$XDG_STATE_HOME/vimrelay/takeover-key` (0600 in a 0700 directory), made on the
 * first connection and kept. The device credential alone no longer lets a connection push a
 * running agent out: a newer connection of the device must prove the running one's key (this
 * agent restarted, or another agent of this user with the same state directory), or the device's
 * first. The key lives apart from the credential (config directories are copied and synced more
 * often than state directories), and, like every file of the state directory, out of every
 * tool's reach (policy/own-files.ts). It is never logged.
 * What crosses is a proof bound to the relay, HMAC-SHA256(key, "vimrelay-takeover-v1 " + the
 * relay's origin), base64url, sent in the upgrade's TAKEOVER_HEADER: a relay learns nothing it
 * could present to another.
 */
import { createHmac } from 'node:crypto';
import { loadOrCreateLocalToken } from '../local/token.ts';

/** The proof of `key` for the relay at `relayUrl`. */
export function takeoverProof(key: string, relayUrl: string): string {
  return createHmac('sha256', key).update(`vimrelay-takeover-v1 ${new URL(relayUrl).origin}`).digest('base64url');
}

/** The proof for `relayUrl` of the key in `file`, the key made first when there is none. */
export function loadTakeoverProof(file: string, relayUrl: string): string {
  return takeoverProof(loadOrCreateLocalToken(file), relayUrl);
}
