/**
 * "Did you mean": the known word a mistyped one is most likely a typo of. Pure, and light enough
 * for the CLI's error paths, which load nothing else.
 */

/**
 * Edits from `a` to `b`: insertions, deletions, substitutions and swaps of two neighbours (the
 * optimal string alignment distance), so that `stauts` is one edit from `status`.
 */
function edits(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to `typed`, ignoring case, if it is within one edit per three characters
 * typed (at least one); the first of equally close ones. Undefined when none is that close: a
 * guess far off helps less than the list of what there is.
 */
export function closest(typed: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(typed.length / 3));
  let found: string | undefined;
  let distance = limit + 1;
  for (const candidate of candidates) {
    const d = edits(typed.toLowerCase(), candidate.toLowerCase());
    if (d < distance) [found, distance] = [candidate, d];
  }
  return found;
}
