// The decision card's secrets (agent/decisions/card.ts), each refusal as the token that earns it:
// a token answers its own decision once, for the account and device that made it.
import { describe, expect, it } from 'vitest';
import { CardKeys, type CardHolder } from '../../../agent/decisions/card.ts';

const DESK: CardHolder = { account: 'relay https://relay.example', device: 'dev-desk' };
const ID = '0f0e0d0c-0b0a-4009-8007-060504030201';
const OTHER = '11111111-2222-4333-8444-555555555555';

describe('CardKeys', () => {
  it('takes a token for its own decision once; the second time is a replay', () => {
    const keys = new CardKeys(() => DESK);
    const token = keys.token(ID);
    expect(keys.check(token, ID)).toBeNull();
    expect(keys.check(token, ID)).toBe('REPLAYED');
  });

  it('refuses another decision\'s token, a changed one and a made-up one as forged, and marks nothing used', () => {
    const keys = new CardKeys(() => DESK);
    const token = keys.token(ID);
    expect(keys.check(keys.token(OTHER), ID)).toBe('FORGED');
    const parts = token.split('.');
    const mac = parts[4] ?? '';
    const changed = `${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
    expect(keys.check([...parts.slice(0, 4), changed].join('.'), ID)).toBe('FORGED');
    expect(keys.check('made-up', ID)).toBe('FORGED');
    expect(keys.check(token, ID)).toBeNull();
  });

  it('names a token of another account or of another device of this one, and one of another agent with the same names is forged', () => {
    const desk = new CardKeys(() => DESK);
    const token = desk.token(ID);
    expect(new CardKeys(() => ({ account: 'local 1000', device: 'desk' })).check(token, ID)).toBe('OTHER_ACCOUNT');
    expect(new CardKeys(() => ({ ...DESK, device: 'dev-laptop' })).check(token, ID)).toBe('OTHER_DEVICE');
    // Same names, another agent's key (it restarted, or copied the names).
    expect(new CardKeys(() => DESK).check(token, ID)).toBe('FORGED');
  });

  it('follows the holder: a relay link learns its device at its welcome', () => {
    let holder: CardHolder = { account: DESK.account, device: '' };
    const keys = new CardKeys(() => holder);
    const before = keys.token(ID);
    holder = DESK;
    expect(keys.check(before, ID)).toBe('OTHER_DEVICE');
    expect(keys.check(keys.token(ID), ID)).toBeNull();
  });
});
