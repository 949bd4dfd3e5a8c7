/**
 * Agent sockets as the Hub keeps them: the attachment each hibernatable socket carries (it
 * survives hibernation; in-memory fields would not), the close codes the Hub uses, and sending a
 * typed wire message. No policy: `hub.ts` decides when to send and close.
 */
import type { HubMessage, TakeoverHow } from '../../protocol/index.ts';

/** Stored with `serializeAttachment` on every accepted agent socket. */
export interface Attachment {
  readonly deviceId: string;
  readonly deviceName: string;
  /** Unique per connection: tells an old socket of a device from its replacement. */
  readonly connId: string;
  /** True once the agent's `hello` was accepted. */
  readonly greeted: boolean;
  /** When the socket was accepted (epoch ms): a heartbeat's stand-in until the first one. */
  readonly connectedAt: number;
  /**
   * How many editors the agent's last list on this connection held (distinct ids): more than the
   * registry has rows for means the rows went, and the Hub asks for the list again.
   */
  readonly editors?: number;
  /** The SHA-256 (hex) of the takeover key the agent proved at the upgrade, or null (hub/takeover.ts). */
  readonly takeover: string | null;
  /** The address it connected from, as the owner is shown it (http/client-address.ts `shownAddress`). */
  readonly address: string;
  /** The live connection it replaced, for its welcome to tell (dropped once told). */
  readonly tookOver?: { readonly address: string; readonly since: number; readonly how: TakeoverHow };
}

/**
 * Close codes (RFC 6455 §7.4: 4000-4999 are private use). The agent reconnects after any of them
 * except `revoked`, which it also learns from the REVOKED fault sent just before, and `replaced`:
 * another agent for the same device took over (its reason says from where and how:
 * hub/takeover.ts), and the two must not take turns.
 */
export const CLOSE = {
  normal: 1000,
  /** A newer connection of the same device took over. */
  replaced: 4000,
  /** The device was revoked. */
  revoked: 4001,
  /** The agent speaks another wire version. */
  versionMismatch: 4002,
  /** A message arrived before `hello`. */
  protocolError: 4003,
  /** No heartbeat for LIMITS.heartbeatTimeoutMs: the agent is frozen, asleep or cut off. */
  heartbeatMissed: 4004,
} as const;

/** The attachment of an agent socket, or null for a socket without one (never accepted by us). */
export function attachmentOf(ws: WebSocket): Attachment | null {
  return (ws.deserializeAttachment() as Attachment | null) ?? null;
}

/** Sends one wire message. False when the socket can no longer send (it is closing or closed). */
export function send(ws: WebSocket, message: HubMessage): boolean {
  try {
    ws.send(JSON.stringify(message));
    return true;
  } catch {
    return false;
  }
}

/** Closes a socket, ignoring the error of one that is already closing. */
export function closeQuietly(ws: WebSocket, code: number, reason: string): void {
  try {
    ws.close(code, reason);
  } catch {
    // Already closed or closing: nothing left to do.
  }
}
