/**
 * Chunked transfer of long string parameters to Vim. Vim's JSON reader is superlinear in the size
 * of one message (6 MB in one message: ~2.5 s; the same in pieces: a fraction of that), so a
 * parameter longer than VIM_CHUNK_UNITS is sent ahead in pieces (`vimrelay#stage(id, piece)`, one
 * message each) and replaced in the tool's parameters by `{vimrelay_staged: id}`, which the
 * plugin's dispatcher joins back before it runs the tool (still inside one Vim function call).
 * Pure: splits values, does no I/O.
 */

/** Longest string sent in one message, in UTF-16 code units (at most 3 bytes of UTF-8 each). */
export const VIM_CHUNK_UNITS = 32 * 1024;

/** Parameters ready to send, and the pieces to stage first, in order. */
export interface Staged {
  params: Record<string, unknown>;
  pieces: [id: string, piece: string][];
}

/** Splits `s` into pieces of at most `max` (2 or more) code units, never between the halves of a surrogate pair. */
export function splitPieces(s: string, max: number): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (start < s.length) {
    let end = Math.min(start + max, s.length);
    const last = s.charCodeAt(end - 1);
    if (end < s.length && end - start > 1 && last >= 0xd800 && last <= 0xdbff) end -= 1;
    pieces.push(s.slice(start, end));
    start = end;
  }
  return pieces;
}

/** Stages every top-level string parameter longer than `max`, under ids made by `newId`. */
export function stageParams(params: Record<string, unknown>, newId: () => string, max: number = VIM_CHUNK_UNITS): Staged {
  const out: Record<string, unknown> = {};
  const pieces: [string, string][] = [];
  for (const [key, value] of Object.entries(params)) {
    if (typeof value === 'string' && value.length > max) {
      const id = newId();
      for (const piece of splitPieces(value, max)) pieces.push([id, piece]);
      out[key] = { vimrelay_staged: id };
    } else {
      out[key] = value;
    }
  }
  return { params: out, pieces };
}
