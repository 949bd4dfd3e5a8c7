/**
 * Line diffs for reviews (README "Reviews"): the hunks that turn one list of lines into another,
 * a three-way merge of the user's own typing with a reviewed proposal, and the unified diff the
 * model is shown of what the user changed in a proposal.
 *
 * Contract: pure. Lines are compared exactly (whitespace included). `diffLines` is Myers' O(ND)
 * algorithm ("An O(ND) Difference Algorithm and Its Variations", 1986) after the common head
 * and tail are set aside, so an edit of a few lines in a long buffer costs little.
 */

/** `count` lines of the old text from `start` (0-based) replaced by `lines`. */
export interface Hunk {
  readonly start: number;
  readonly count: number;
  readonly lines: readonly string[];
}

/** The hunks that turn `a` into `b`, in order, none overlapping or touching another. */
export function diffLines(a: readonly string[], b: readonly string[]): Hunk[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  return editScript(x, y).map((h) => ({ start: h.start + head, count: h.count, lines: y.slice(h.at, h.at + h.added) }));
}

/** One run of changes found by `editScript`: `count` lines of x from `start` for `added` of y from `at`. */
interface Run {
  start: number;
  count: number;
  at: number;
  added: number;
}

/** Myers' greedy forward search, with the trace kept to walk back the shortest edit script. */
function editScript(x: readonly string[], y: readonly string[]): Run[] {
  const n = x.length;
  const m = y.length;
  if (n === 0 && m === 0) return [];
  if (n === 0 || m === 0) return [{ start: 0, count: n, at: 0, added: m }];
  const max = n + m;
  const offset = max;
  let v: Int32Array = new Int32Array(2 * max + 2);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let i = k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0)) ? (v[offset + k + 1] ?? 0) : (v[offset + k - 1] ?? 0) + 1;
      let j = i - k;
      while (i < n && j < m && x[i] === y[j]) {
        i++;
        j++;
      }
      v[offset + k] = i;
      if (i >= n && j >= m) {
        found = d;
        break;
      }
    }
  }
  // Walk back from (n, m), noting each deletion and insertion; equal runs split the hunks.
  const edits: { i: number; j: number; kind: 'del' | 'ins' }[] = [];
  let i = n;
  let j = m;
  for (let d = found; d > 0; d--) {
    v = trace[d] ?? v;
    const k = i - j;
    const down = k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0));
    const prevK = down ? k + 1 : k - 1;
    const prevI = v[offset + prevK] ?? 0;
    const prevJ = prevI - prevK;
    while (i > prevI && j > prevJ) {
      i--;
      j--;
    }
    if (down) edits.push({ i, j: prevJ, kind: 'ins' });
    else edits.push({ i: prevI, j, kind: 'del' });
    i = prevI;
    j = prevJ;
  }
  edits.reverse();
  const runs: Run[] = [];
  for (const e of edits) {
    const last = runs.at(-1);
    // An edit continues the last run when no equal line lies between them.
    const inRun = last !== undefined && e.i === last.start + last.count && e.j === last.at + last.added;
    const run = inRun ? last : { start: e.i, count: 0, at: e.j, added: 0 };
    if (!inRun) runs.push(run);
    if (e.kind === 'del') run.count++;
    else run.added++;
  }
  return runs;
}

/** `hunks` (of `diffLines(a, …)`) made on `a`. */
export function applyHunks(a: readonly string[], hunks: readonly Hunk[]): string[] {
  const out: string[] = [];
  let at = 0;
  for (const h of hunks) {
    out.push(...a.slice(at, h.start), ...h.lines);
    at = h.start + h.count;
  }
  out.push(...a.slice(at));
  return out;
}

/** What `merge3` found: the hunks to make on the current text, or where the two changes meet. */
export type Merge = { ok: true; hunks: Hunk[] } | { ok: false; conflict: { readonly line: number } };

/**
 * The changes from `base` to `proposed` made on `current` (the base as the user has changed it
 * since): each hunk moves by what the user's changes above it added or took away. A hunk that
 * overlaps or touches a change of the user's is a conflict (`line`: 1-based, in `current`), and
 * nothing is merged then.
 */
export function merge3(base: readonly string[], current: readonly string[], proposed: readonly string[]): Merge {
  const ours = diffLines(base, proposed);
  if (sameLines(base, current)) return { ok: true, hunks: ours };
  const theirs = diffLines(base, current);
  const hunks: Hunk[] = [];
  let t = 0;
  let shift = 0;
  for (const h of ours) {
    while (t < theirs.length) {
      const u = theirs[t];
      if (u === undefined || u.start + u.count >= h.start) break;
      shift += u.lines.length - u.count;
      t++;
    }
    const u = theirs[t];
    // The user's next change starts at or before this hunk's last line (or right after it).
    if (u !== undefined && u.start <= h.start + h.count) return { ok: false, conflict: { line: h.start + shift + 1 } };
    hunks.push({ start: h.start + shift, count: h.count, lines: h.lines });
  }
  return { ok: true, hunks };
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

/** Lines of context around each change in `unifiedDiff`. */
const CONTEXT = 3;

/**
 * The unified diff (POSIX `diff -u`, GNU's hunk header) from `a` to `b`, labelled `from` and
 * `to`; '' when they are the same. A line that lacks its final newline is not marked: buffers
 * are lists of lines.
 */
export function unifiedDiff(a: readonly string[], b: readonly string[], from: string, to: string): string {
  const hunks = diffLines(a, b);
  if (hunks.length === 0) return '';
  const out = [`--- ${from}`, `+++ ${to}`];
  // Hunks whose contexts meet are shown as one.
  let i = 0;
  let delta = 0;
  while (i < hunks.length) {
    let last = i;
    while (last + 1 < hunks.length && (hunks[last + 1]?.start ?? 0) - ((hunks[last]?.start ?? 0) + (hunks[last]?.count ?? 0)) <= 2 * CONTEXT) last++;
    const first = hunks[i] as Hunk;
    const end = hunks[last] as Hunk;
    const from0 = Math.max(0, first.start - CONTEXT);
    const to0 = Math.min(a.length, end.start + end.count + CONTEXT);
    const body: string[] = [];
    let at = from0;
    let added = 0;
    let removed = 0;
    for (let h = i; h <= last; h++) {
      const hunk = hunks[h] as Hunk;
      for (; at < hunk.start; at++) body.push(` ${a[at] ?? ''}`);
      for (let r = 0; r < hunk.count; r++) body.push(`-${a[hunk.start + r] ?? ''}`);
      for (const line of hunk.lines) body.push(`+${line}`);
      at = hunk.start + hunk.count;
      added += hunk.lines.length;
      removed += hunk.count;
    }
    for (; at < to0; at++) body.push(` ${a[at] ?? ''}`);
    const oldCount = to0 - from0;
    const newCount = oldCount - removed + added;
    const newStart = from0 + delta;
    out.push(`@@ -${range(from0, oldCount)} +${range(newStart, newCount)} @@`, ...body);
    delta += added - removed;
    i = last + 1;
  }
  return `${out.join('\n')}\n`;
}

/** A hunk header's range (1-based start, count; an empty range names the line before it). */
function range(start0: number, count: number): string {
  return count === 0 ? `${start0},0` : `${start0 + 1},${count}`;
}
