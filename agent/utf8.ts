/**
 * The UTF-8 bytes of an outgoing message, for the agent's two outward channels (stdout of `serve
 * --stdio`, the relay's WebSocket), written into one reused scratch buffer and copied out:
 *
 * - `utf8Bytes(text)`: a string in one pass over it. Buffer.from, ws's send and a stream's own
 *   write of a string all count the bytes first, a pass that costs more than the encoding itself
 *   for text outside Latin-1.
 * - `jsonBytes(value)`: JSON.stringify(value)'s bytes, without ever making that one string. A
 *   large JSON.stringify result is a rope of pieces that has to be flattened into one fresh
 *   string before any encoder reads it, and past V8's regular object size (128 KiB: a 1,000-line
 *   read_buffer answer is 225 KiB of UTF-16) that string gets pages of its own, mapped for it and
 *   given back after it: on a virtual machine whose page faults are dear, that flattening cost
 *   several times the encoding. Here the value is written piece by piece (no piece longer than
 *   PIECE_CHARS), each encoded straight into the scratch, whose pages stay mapped.
 *
 * A string is encoded at most 3 bytes per UTF-16 code unit (a surrogate pair takes 4, a lone
 * surrogate becomes U+FFFD, 3, as Buffer.from makes it).
 */
import { splitPieces } from './pieces.ts';

/** Messages that could take more than this go through Buffer.from, so that no scratch stays this big. */
const SCRATCH_MAX_BYTES = 4 * 1024 * 1024;

/** The longest piece of JSON text made at once (UTF-16 code units): well under V8's regular object size. */
const PIECE_CHARS = 8 * 1024;

/** Arrays with more elements than this are written in batches of elements, fewer one by one. */
const FEW_ELEMENTS = 16;

/** What an element that is not a string counts for when batching (a guess at its JSON length). */
const ELEMENT_CHARS = 64;

let scratch = Buffer.allocUnsafeSlow(64 * 1024);

/** Ensures room for `more` bytes past `used`, keeping the first `used` bytes; false past the cap. */
function room(used: number, more: number): boolean {
  const need = used + more;
  if (need <= scratch.length) return true;
  if (need > SCRATCH_MAX_BYTES) return false;
  const grown = Buffer.allocUnsafeSlow(Math.min(SCRATCH_MAX_BYTES, Math.max(need, scratch.length * 2)));
  scratch.copy(grown, 0, 0, used);
  scratch = grown;
  return true;
}

/** `text` as UTF-8, in a Buffer of its own (the caller may keep it; the scratch is reused). */
export function utf8Bytes(text: string): Buffer {
  if (!room(0, text.length * 3)) return Buffer.from(text, 'utf8');
  const written = scratch.write(text, 0, 'utf8');
  return Buffer.from(scratch.subarray(0, written));
}

/** Thrown inside jsonBytes when the message outgrows the scratch: it is then encoded whole. */
class TooLarge extends Error {}

/** Appends JSON text to the scratch, in order. */
class JsonWriter {
  used = 0;

  text(piece: string): void {
    if (!room(this.used, piece.length * 3)) throw new TooLarge();
    this.used += scratch.write(piece, this.used, 'utf8');
  }

  value(value: unknown): void {
    if (typeof value === 'string') return this.string(value);
    if (Array.isArray(value)) return this.array(value);
    if (isPlainObject(value)) return this.object(value);
    // Numbers, booleans, null, and objects with toJSON: as JSON.stringify writes them. A value
    // that has no JSON (undefined, a function) reaches here only as an array's element: null.
    this.text(JSON.stringify(value) ?? 'null');
  }

  string(value: string): void {
    if (value.length <= PIECE_CHARS) return this.text(JSON.stringify(value));
    this.text('"');
    // Never between the halves of a surrogate pair (splitPieces): JSON.stringify would escape each half alone.
    for (const piece of splitPieces(value, PIECE_CHARS)) this.text(JSON.stringify(piece).slice(1, -1));
    this.text('"');
  }

  array(value: readonly unknown[]): void {
    this.text('[');
    if (value.length <= FEW_ELEMENTS) {
      value.forEach((element, i) => {
        if (i > 0) this.text(',');
        this.value(element);
      });
    } else {
      this.batches(value);
    }
    this.text(']');
  }

  /** Many elements: consecutive ones stringified together, a long string alone. */
  batches(value: readonly unknown[]): void {
    let from = 0;
    let chars = 0;
    let first = true;
    const flush = (to: number): void => {
      if (to > from) {
        const json = JSON.stringify(value.slice(from, to));
        this.text(first ? json.slice(1, -1) : ',' + json.slice(1, -1));
        first = false;
      }
      from = to;
      chars = 0;
    };
    for (let i = 0; i < value.length; i++) {
      const element = value[i];
      if (typeof element === 'string' && element.length > PIECE_CHARS) {
        flush(i);
        if (!first) this.text(',');
        this.string(element);
        first = false;
        from = i + 1;
        continue;
      }
      chars += typeof element === 'string' ? element.length : ELEMENT_CHARS;
      if (chars >= PIECE_CHARS) flush(i + 1);
    }
    flush(value.length);
  }

  object(value: Record<string, unknown>): void {
    this.text('{');
    let first = true;
    for (const key of Object.keys(value)) {
      const field = value[key];
      // As JSON.stringify: a field that has no JSON is left out.
      if (!hasJson(field)) continue;
      this.text(first ? JSON.stringify(key) + ':' : ',' + JSON.stringify(key) + ':');
      first = false;
      this.value(field);
    }
    this.text('}');
  }
}

/** The bytes of JSON.stringify(value) followed by `suffix`, in a Buffer of its own. */
export function jsonBytes(value: unknown, suffix = ''): Buffer {
  const written = writeJson(value, suffix);
  return typeof written === 'string' ? Buffer.from(written, 'utf8') : Buffer.from(scratch.subarray(0, written));
}

/** A message's bytes in pieces (jsonChunks), and the giving back of their buffers once written. */
export interface Chunks {
  readonly pieces: readonly Buffer[];
  /** Call once every piece has been written (its write's callback ran): their buffers serve the next message. */
  release(): void;
}

/**
 * The bytes of JSON.stringify(value) followed by `suffix`, in pieces of at most COPY_BYTES, each
 * in a buffer taken from a small free list and given back by `release`. A message copied out into a
 * Buffer of its own every time made one large block of garbage per message: under a burst of large
 * answers (32 callers of 1,000-line reads) tens of MiB of them waited for the next collection at
 * once, and glibc keeps what they took mapped after they are freed (`serve --stdio` kept 20 to 30
 * MiB more after such a burst than before it). Reused, they stay a few.
 */
export function jsonChunks(value: unknown, suffix = ''): Chunks {
  const written = writeJson(value, suffix);
  const bytes = typeof written === 'string' ? Buffer.from(written, 'utf8') : scratch.subarray(0, written);
  const taken: Buffer[] = [];
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += COPY_BYTES) {
    const buffer = spare.pop() ?? Buffer.allocUnsafeSlow(COPY_BYTES);
    const length = bytes.copy(buffer, 0, at, Math.min(bytes.length, at + COPY_BYTES));
    taken.push(buffer);
    pieces.push(buffer.subarray(0, length));
  }
  let released = false;
  return {
    pieces,
    release() {
      if (released) return;
      released = true;
      for (const buffer of taken) if (spare.length < SPARE_MAX) spare.push(buffer);
    },
  };
}

/** The size of jsonChunks' buffers: a few regular allocations each, not a mapping of its own. */
const COPY_BYTES = 64 * 1024;

/** jsonChunks' buffers given back and not yet taken again, at most SPARE_MAX (2 MiB). */
const spare: Buffer[] = [];
const SPARE_MAX = 32;

/** Writes JSON.stringify(value) + suffix into the scratch (its length), or returns that text when it outgrows it. */
function writeJson(value: unknown, suffix: string): number | string {
  const writer = new JsonWriter();
  try {
    writer.value(value);
    writer.text(suffix);
  } catch (error) {
    if (!(error instanceof TooLarge)) throw error;
    return JSON.stringify(value) + suffix;
  }
  return writer.used;
}

/** Whether JSON.stringify writes `value` (in an object; in an array it writes null instead). */
function hasJson(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}

/** An object JSON.stringify writes field by field: no toJSON, not a boxed primitive. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}
