/**
 * The UTF-8 bytes of a message in one pass over it, for the agent's two outward channels (stdout
 * of `serve --stdio`, the relay's WebSocket). Buffer.from, ws's send and a stream's own write of a
 * string all count the bytes first, a pass over the text that costs more than the encoding itself
 * for text outside Latin-1 (a 1,000-line read_buffer answer on Node 20: 113 µs to count, 68 to
 * encode). Here the text is encoded into a scratch buffer that holds any encoding of it (at most 3
 * bytes per UTF-16 code unit: a surrogate pair takes 4, a lone surrogate becomes U+FFFD, 3, as
 * Buffer.from makes it) and its bytes are copied out.
 */

/** Messages that could take more than this go through Buffer.from, so that no scratch stays this big. */
const SCRATCH_MAX_BYTES = 4 * 1024 * 1024;

let scratch = Buffer.allocUnsafeSlow(64 * 1024);

/** `text` as UTF-8, in a Buffer of its own (the caller may keep it; the scratch is reused). */
export function utf8Bytes(text: string): Buffer {
  const most = text.length * 3;
  if (most > SCRATCH_MAX_BYTES) return Buffer.from(text, 'utf8');
  if (most > scratch.length) scratch = Buffer.allocUnsafeSlow(Math.min(SCRATCH_MAX_BYTES, Math.max(most, scratch.length * 2)));
  const written = scratch.write(text, 0, 'utf8');
  return Buffer.from(scratch.subarray(0, written));
}
