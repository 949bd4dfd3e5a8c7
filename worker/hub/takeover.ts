/**
 * One agent per device, and which one (PROTOCOL.md "One agent per device"). A device's credential
 * is a bearer secret: anyone who copied it could connect as the device, and the Hub keeps one live
 * connection per device, so a newcomer used to push the running agent out for good. Now each agent
 * proves a takeover key of its own at the upgrade (`TAKEOVER_HEADER`: a proof derived from a
 * random key kept in the agent's state directory, apart from the credential). A newcomer replaces
 * the device's live connection only when it proves that connection's key (the same agent
 * restarted), or the device's first key (the first an agent proved: the device's own agent takes
 * its place back from anyone who connected while it was away), or when the live connection proved
 * none (an agent from before takeover keys). Otherwise it is refused, and the live agent is told.
 * Pure: the Hub (agent-sockets.ts) gathers the keys and acts on the verdict.
 */
import type { TakeoverHow } from '../../protocol/index.ts';

/** Whether a newcomer may connect, and how it took over; `free`: no connection of the device was live. */
export type TakeoverVerdict = { readonly admit: true; readonly how: TakeoverHow | 'free' } | { readonly admit: false };

/**
 * The verdict for a newcomer that proved `newcomer` (a key's hash, or null) while the device's
 * live connections proved `live`, the device's first key being `first`; `same` compares two
 * hashes (in constant time).
 */
export function decideTakeover(newcomer: string | null, live: readonly (string | null)[], first: string | null, same: (a: string, b: string) => boolean): TakeoverVerdict {
  if (live.length === 0) return { admit: true, how: 'free' };
  if (newcomer !== null && live.every((key) => key !== null && same(key, newcomer))) return { admit: true, how: 'same_key' };
  if (newcomer !== null && first !== null && same(first, newcomer)) return { admit: true, how: 'first_key' };
  if (live.every((key) => key === null)) return { admit: true, how: 'keyless' };
  return { admit: false };
}

/** The close reason (RFC 6455 §5.5.1: at most 123 bytes) a replaced connection gets, naming the newcomer's address. */
export function replacedReason(how: TakeoverHow, address: string): string {
  const from = address.slice(0, 45);
  switch (how) {
    case 'same_key':
      return `replaced by a newer connection of this same agent from ${from}`;
    case 'first_key':
      return `replaced by the device's first agent (its key) from ${from}`;
    case 'keyless':
      return `replaced by a newer connection from ${from}`;
  }
}
