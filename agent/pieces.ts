/**
 * Cutting long text into pieces of a bounded length, for what must not send or build one long
 * string: the agent's outgoing JSON (utf8.ts) and the parameters staged for Vim
 * (editors/vim/staging.ts). Pure.
 */

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

