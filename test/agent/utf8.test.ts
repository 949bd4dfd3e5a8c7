// utf8Bytes: the same bytes Buffer.from gives, for every kind of UTF-16 text, in a Buffer of each
// call's own however the scratch behind it is reused or grown.
import { describe, expect, it } from 'vitest';
import { utf8Bytes } from '../../agent/utf8.ts';

describe('utf8Bytes', () => {
  it.each([
    ['empty', ''],
    ['ASCII', '{"jsonrpc":"2.0","id":1}\n'],
    ['Latin-1 and the BMP', 'héllo wörld — 日本語'],
    ['surrogate pairs', 'emoji 😀🎉 end'],
    ['lone surrogates, as U+FFFD', 'a\ud800b\udc00c\ud83d'],
    ['a NUL and control characters', 'a\u0000b\u0001\n'],
  ])('encodes %s as Buffer.from does', (_what, text) => {
    expect(utf8Bytes(text).equals(Buffer.from(text, 'utf8'))).toBe(true);
  });

  it('gives each call bytes of its own while the scratch is reused and grown', () => {
    const first = 'é日😀'.repeat(1_000);
    const kept = utf8Bytes(first);
    expect(utf8Bytes('x'.repeat(5_000)).toString()).toBe('x'.repeat(5_000));
    expect(kept.equals(Buffer.from(first))).toBe(true);
    // Past the first scratch's 64 KiB, and then past the 4 MiB a scratch may grow to.
    const larger = '日本語'.repeat(40_000);
    const huge = '😀'.repeat(1_000_000);
    const grown = utf8Bytes(larger);
    expect(utf8Bytes(huge).equals(Buffer.from(huge))).toBe(true);
    expect(utf8Bytes('y'.repeat(5_000)).toString()).toBe('y'.repeat(5_000));
    expect(grown.equals(Buffer.from(larger))).toBe(true);
  });
});
