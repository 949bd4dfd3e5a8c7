/**
 * Pairing tickets: the owner's own pairing, reserved from the signed-in `/pair` page. Anyone may ask
 * to pair (RFC 8628 §3.1 is anonymous), so strangers can fill the pairing queue (PAIRING_LIMITS),
 * and the owner's own `vimrelay pair` is then refused like theirs. A ticket lets one request in
 * past every pairing limit, the queue's and its address's: the owner gets one on the page, and
 * `vimrelay pair <relay> --ticket <ticket>` presents it. It holds a place, nothing more: the
 * request still waits for the owner to approve its code, as any other.
 *
 * Owns the `pairing_tickets` table: the SHA-256 of each live ticket (never the ticket) and when it
 * expires. A ticket works once, for PAIRING_TTL_S; at most MAX_LIVE_TICKETS live at once, a new
 * one replacing the oldest.
 */
import { hashSecret, newPairingTicket, PAIRING_TTL_S, sameHash } from '../auth/pairing.ts';

const SCHEMA = `CREATE TABLE IF NOT EXISTS pairing_tickets (
  hash TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
)`;

/** Tickets live at once: the owner pairs a few machines at a time. */
export const MAX_LIVE_TICKETS = 5;

/** A ticket as the owner's page shows it, once. */
export interface IssuedTicket {
  ticket: string;
  expires_in: number;
}

export class PairingTickets {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(SCHEMA);
  }

  /** A new ticket for the owner, valid PAIRING_TTL_S from `nowMs`. */
  async issue(nowMs: number): Promise<IssuedTicket> {
    const ticket = newPairingTicket();
    const hash = await hashSecret(ticket);
    this.sql.exec('DELETE FROM pairing_tickets WHERE expires_at <= ?', nowMs);
    this.sql.exec('INSERT INTO pairing_tickets (hash, created_at, expires_at) VALUES (?, ?, ?)', hash, nowMs, nowMs + PAIRING_TTL_S * 1000);
    this.sql.exec('DELETE FROM pairing_tickets WHERE hash NOT IN (SELECT hash FROM pairing_tickets ORDER BY created_at DESC, rowid DESC LIMIT ?)', MAX_LIVE_TICKETS);
    return { ticket, expires_in: PAIRING_TTL_S };
  }

  /** Uses up `ticket` at `nowMs`: true when it was live (it works no more), false when unknown, used or expired. */
  async redeem(ticket: string, nowMs: number): Promise<boolean> {
    const hash = await hashSecret(ticket);
    // Synchronous from here: two requests with one ticket cannot both find it.
    const row = this.sql.exec<{ hash: string }>('SELECT hash FROM pairing_tickets WHERE hash = ? AND expires_at > ?', hash, nowMs).toArray()[0];
    if (!row || !sameHash(row.hash, hash)) return false;
    this.sql.exec('DELETE FROM pairing_tickets WHERE hash = ?', hash);
    return true;
  }
}
