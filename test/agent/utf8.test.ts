// utf8Bytes: the same bytes Buffer.from gives, for every kind of UTF-16 text, in a Buffer of each
// call's own however the scratch behind it is reused or grown. jsonBytes: the same bytes as
// Buffer.from(JSON.stringify(value)), for every shape of value JSON.stringify takes, pieces and
// batches at and around their bounds included. jsonChunks: those bytes in pieces of at most 64 KiB
// whose buffers, given back once written, serve the next message.
import { describe, expect, it } from 'vitest';
import { jsonBytes, jsonChunks, utf8Bytes } from '../../agent/utf8.ts';

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

/** The piece and batch bounds of utf8.ts, which the cases below straddle. */
const PIECE = 8 * 1024;

/** A long string whose every PIECE-th code unit starts a surrogate pair (its high half ends a piece). */
const pairAtEveryBound = 'a'.repeat(PIECE - 1) + ('😀' + 'b'.repeat(PIECE - 2)).repeat(3);

const lines = Array.from({ length: 1_000 }, (_, i) => `${String(i + 1).padStart(4, '0')} héllo "wörld" — 日本語\t\\ 😀`);

describe('jsonBytes', () => {
  it.each<[string, unknown]>([
    ['a small message', { jsonrpc: '2.0', id: 1, result: { ok: true } }],
    ['numbers, booleans and null', [0, -1.5, 1e21, true, false, null, Number.NaN, Infinity]],
    ['a string of exactly one piece, and one unit more', [`"${'é'.repeat(PIECE - 2)}"`, 'x'.repeat(PIECE + 1)]],
    ['a long string with escapes, controls, NUL and quotes at piece bounds', '"\\\n\u0000\u001f'.repeat(PIECE)],
    ['a surrogate pair across every piece bound', pairAtEveryBound],
    ['lone surrogates in a long string, at a piece bound too', 'x'.repeat(PIECE - 1) + '\ud800' + 'y\udc00'.repeat(PIECE)],
    ['a read_buffer answer as the stdio channel writes it', {
      jsonrpc: '2.0',
      id: 7,
      result: {
        content: [{ type: 'text', text: JSON.stringify({ buf: 1, lines }) }],
        structuredContent: { buf: 1, path: '/tmp/é.txt', changedtick: 3, lines, next_start_line: null },
      },
    }],
    ['many small objects (grep hits)', { hits: Array.from({ length: 600 }, (_, i) => ({ line: i, col: 1, text: `hit ${i} ü`, extra: undefined })) }],
    ['long strings among many short ones', Array.from({ length: 40 }, (_, i) => (i % 7 === 0 ? 'Ω'.repeat(PIECE + i) : `s${i}`))],
    ['what has no JSON: left out of objects, null in arrays (few and many)', {
      gone: undefined,
      fn: () => 1,
      sym: Symbol('s'),
      few: [undefined, () => 1, Symbol('s'), 1],
      many: Array.from({ length: 40 }, (_, i) => (i % 2 ? undefined : i)),
    }],
    ['toJSON, boxed primitives and a null prototype', { when: new Date(0), boxed: [new String('s'), new Number(2)], bare: Object.assign(Object.create(null) as object, { k: 'v' }) }],
    ['empty containers', { a: [], o: {}, s: '', nested: [[], [{}]] }],
  ])('writes %s as JSON.stringify does', (_what, value) => {
    expect(jsonBytes(value).toString('utf8')).toBe(JSON.stringify(value));
    expect(jsonBytes(value).equals(Buffer.from(JSON.stringify(value), 'utf8'))).toBe(true);
  });

  it('appends the suffix, and gives each call bytes of its own', () => {
    const first = { lines };
    const kept = jsonBytes(first, '\n');
    expect(jsonBytes({ other: 'x'.repeat(70_000) }, '\n').toString()).toBe(JSON.stringify({ other: 'x'.repeat(70_000) }) + '\n');
    expect(kept.toString()).toBe(JSON.stringify(first) + '\n');
  });

  it('writes a value larger than its scratch may grow whole, as JSON.stringify does', () => {
    // Over 4 MiB of UTF-8: written through one JSON.stringify, and the scratch stays usable.
    const huge = { lines: Array.from({ length: 20 }, () => '日本語😀'.repeat(30_000)) };
    expect(jsonBytes(huge, '\n').equals(Buffer.from(JSON.stringify(huge) + '\n'))).toBe(true);
    expect(jsonBytes({ after: true }).toString()).toBe('{"after":true}');
  });
});

describe('jsonChunks', () => {
  const answer = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: JSON.stringify({ lines }) }], structuredContent: { lines } } };

  it('writes JSON.stringify bytes and the suffix in pieces of at most 64 KiB, small and huge messages alike', () => {
    for (const value of [{ ok: true }, answer, { lines: Array.from({ length: 20 }, () => '日本語😀'.repeat(30_000)) }]) {
      const chunks = jsonChunks(value, '\n');
      expect(Buffer.concat(chunks.pieces).equals(Buffer.from(JSON.stringify(value) + '\n'))).toBe(true);
      expect(Math.max(...chunks.pieces.map((p) => p.length))).toBeLessThanOrEqual(64 * 1024);
      chunks.release();
    }
  });

  it('reuses the buffers of a message given back, and never those of one still being written', () => {
    const first = jsonChunks(answer);
    const held = jsonChunks(answer);
    const heldBytes = Buffer.concat(held.pieces);
    first.release();
    first.release();
    const next = jsonChunks({ other: 'x'.repeat(200_000) });
    expect(next.pieces.map((p) => p.buffer)).toEqual(expect.arrayContaining(first.pieces.map((p) => p.buffer)));
    expect(next.pieces.some((p) => held.pieces.some((h) => h.buffer === p.buffer))).toBe(false);
    expect(Buffer.concat(held.pieces).equals(heldBytes)).toBe(true);
    held.release();
    next.release();
  });
});
