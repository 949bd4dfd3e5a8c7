/**
 * The decision card's secrets (protocol/app/card.ts; README "Deciding from elsewhere"): a decision
 * answerable in the assistant is answered there only with a token this agent made for it, which
 * the card gets in the result's `_meta` (hosts hand that to the app and keep it out of the model's
 * context) and the model never sees. The token names who made it — the account (the relay's
 * origin, or this machine's local account) and the device — and the decision, under an HMAC-SHA256
 * with a key of this agent's own (random, in memory, never written): `v1.<account>.<device>.<decision>.<mac>`,
 * each name base64url.
 *
 * Contract: `token(decision)` makes the token for a decision. `check(token, decision)` says whether
 * an answer carrying it may go on to the decision book, in this order: a token of another account
 * (OTHER_ACCOUNT) or of another device of this account (OTHER_DEVICE), by its names; one whose MAC
 * is not this agent's for this decision (FORGED: made up, changed, or another decision's); one
 * that answered once already (REPLAYED: whatever became of that answer). Pure but for the key and
 * the record of used tokens (the last KEPT).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { CardRefusal } from '../../protocol/index.ts';

/** Who answers through this agent: the account and the device the calls come to. */
export interface CardHolder {
  account: string;
  device: string;
}

/** Decisions whose token was used, remembered (the oldest dropped first). */
const KEPT = 1_000;

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64url');
const unb64 = (s: string): string | null => (/^[A-Za-z0-9_-]*$/.test(s) ? Buffer.from(s, 'base64url').toString('utf8') : null);

export class CardKeys {
  readonly #key = randomBytes(32);
  readonly #holder: () => CardHolder;
  readonly #used = new Set<string>();

  /** `holder`: who this agent answers for now (a relay link learns its device id at its welcome). */
  constructor(holder: () => CardHolder) {
    this.#holder = holder;
  }

  /** The token that answers `decision` (see the module header). */
  token(decision: string): string {
    const { account, device } = this.#holder();
    const body = `v1.${b64(account)}.${b64(device)}.${b64(decision)}`;
    return `${body}.${this.#mac(body)}`;
  }

  /** Whether `token` may answer `decision`: null, or the refusal (see the module header). Marks it used. */
  check(token: string, decision: string): Exclude<CardRefusal, 'ALREADY_DECIDED' | 'NOT_PENDING' | 'NOT_OFFERED' | 'INVALID_ANSWER'> | null {
    const parts = token.split('.');
    if (parts.length !== 5 || parts[0] !== 'v1') return 'FORGED';
    const [, account, device, , mac] = parts.map((p, i) => (i === 0 || i === 4 ? p : unb64(p)));
    const holder = this.#holder();
    if (account === null || device === null || mac === undefined || mac === null) return 'FORGED';
    if (account !== holder.account) return 'OTHER_ACCOUNT';
    if (device !== holder.device) return 'OTHER_DEVICE';
    const expected = Buffer.from(this.#mac(`v1.${b64(holder.account)}.${b64(holder.device)}.${b64(decision)}`));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'FORGED';
    if (this.#used.has(decision)) return 'REPLAYED';
    this.#used.add(decision);
    if (this.#used.size > KEPT) this.#used.delete(this.#used.values().next().value as string);
    return null;
  }

  #mac(body: string): string {
    return createHmac('sha256', this.#key).update(body).digest('base64url');
  }
}
