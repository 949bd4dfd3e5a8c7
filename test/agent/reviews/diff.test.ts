// The line diffs a review is built on (agent/reviews/diff.ts): the hunks between two texts make
// one into the other (random texts, thousands of them, and the edge cases: empty, equal, all
// changed); a three-way merge moves a proposal's hunks past the user's own changes and refuses
// where the two meet; and the unified diff the model is shown of what the user changed is one
// that GNU patch, the real tool, applies to get exactly the user's text.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyHunks, diffLines, merge3, unifiedDiff } from '../../../agent/reviews/diff.ts';

/** A small deterministic random source (mulberry32), so that a failure can be run again. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random text of up to `max` lines drawn from few distinct lines (so that diffs have choices). */
function text(next: () => number, max: number): string[] {
  return Array.from({ length: Math.floor(next() * max) }, () => `line ${Math.floor(next() * 6)}`);
}

/** `a` with a few random lines changed, removed and added. */
function edited(next: () => number, a: readonly string[]): string[] {
  const out = [...a];
  for (let e = Math.floor(next() * 4); e >= 0; e--) {
    const at = Math.floor(next() * (out.length + 1));
    const kind = Math.floor(next() * 3);
    if (kind === 0) out.splice(at, 0, `new ${Math.floor(next() * 100)}`);
    else if (kind === 1 && at < out.length) out.splice(at, 1);
    else if (at < out.length) out[at] = `changed ${Math.floor(next() * 100)}`;
  }
  return out;
}

describe('diffLines', () => {
  it('gives hunks that make one text into the other, in order and apart, for thousands of random texts', () => {
    const next = random(7);
    for (let round = 0; round < 3_000; round++) {
      const a = text(next, 30);
      const b = next() < 0.5 ? text(next, 30) : edited(next, a);
      const hunks = diffLines(a, b);
      expect(applyHunks(a, hunks)).toEqual(b);
      for (let h = 1; h < hunks.length; h++) {
        const prev = hunks[h - 1];
        expect(prev && prev.start + prev.count).toBeLessThan(hunks[h]?.start ?? 0);
      }
    }
  });

  it('finds no hunk between equal texts, one for an empty side, and only the changed lines in a long text', () => {
    expect(diffLines(['a', 'b'], ['a', 'b'])).toEqual([]);
    expect(diffLines([], ['x', 'y'])).toEqual([{ start: 0, count: 0, lines: ['x', 'y'] }]);
    expect(diffLines(['x', 'y'], [])).toEqual([{ start: 0, count: 2, lines: [] }]);
    const long = Array.from({ length: 100_000 }, (_, i) => `line ${i}`);
    const changed = [...long];
    changed[50_000] = 'edited';
    expect(diffLines(long, changed)).toEqual([{ start: 50_000, count: 1, lines: ['edited'] }]);
  });
});

describe('merge3', () => {
  const base = ['one', 'two', 'three', 'four', 'five', 'six', 'seven'];

  it('makes the proposal on the base as it is when the user changed nothing', () => {
    const proposed = ['one', 'TWO', 'three', 'four', 'five', 'six', 'seven'];
    expect(merge3(base, base, proposed)).toEqual({ ok: true, hunks: [{ start: 1, count: 1, lines: ['TWO'] }] });
  });

  it('moves the proposal past lines the user added or removed above it', () => {
    const current = ['zero', 'one', 'three', 'four', 'five', 'six', 'seven'];
    const proposed = ['one', 'two', 'three', 'four', 'FIVE!', 'six', 'seven'];
    const merged = merge3(base, current, proposed);
    expect(merged.ok && applyHunks(current, merged.hunks)).toEqual(['zero', 'one', 'three', 'four', 'FIVE!', 'six', 'seven']);
  });

  it('refuses where the proposal and the user changed the same lines, or lines next to each other', () => {
    expect(merge3(base, ['one', 'two', 'THREE', 'four', 'five', 'six', 'seven'], ['one', 'two', '3', 'four', 'five', 'six', 'seven'])).toEqual({ ok: false, conflict: { line: 3 } });
    expect(merge3(base, ['one', 'two', 'THREE', 'four', 'five', 'six', 'seven'], ['one', 'two', 'three', '4', 'five', 'six', 'seven'])).toMatchObject({ ok: false });
  });

  it('keeps both sides whole wherever it merges, for random edits', () => {
    const next = random(11);
    let merged = 0;
    for (let round = 0; round < 2_000; round++) {
      const a = Array.from({ length: 20 + Math.floor(next() * 20) }, (_, i) => `line ${i}`);
      const user = edited(next, a);
      const proposal = edited(next, a);
      const result = merge3(a, user, proposal);
      if (!result.ok) continue;
      merged++;
      const out = applyHunks(user, result.hunks);
      // What the proposal changed is in the result, and so is everything the user typed.
      for (const line of proposal.filter((l) => !a.includes(l))) expect(out).toContain(line);
      for (const line of user.filter((l) => !a.includes(l))) expect(out).toContain(line);
    }
    expect(merged).toBeGreaterThan(100);
  });
});

describe('unifiedDiff', () => {
  it('is empty for equal texts, and a diff that GNU patch applies to get the other text', () => {
    expect(unifiedDiff(['a'], ['a'], 'proposal', 'applied')).toBe('');
    const dir = mkdtempSync(join(tmpdir(), 'vimrelay-diff-'));
    try {
      const next = random(3);
      for (let round = 0; round < 60; round++) {
        const a = Array.from({ length: Math.floor(next() * 40) }, (_, i) => `line ${i} ${Math.floor(next() * 3)}`);
        const b = edited(next, a);
        const diff = unifiedDiff(a, b, 'proposal', 'applied');
        const file = join(dir, 'f.txt');
        writeFileSync(file, a.map((l) => `${l}\n`).join(''));
        writeFileSync(join(dir, 'f.diff'), diff);
        const patched = spawnSync('patch', ['--quiet', '--force', file, join(dir, 'f.diff')], { encoding: 'utf8' });
        expect(patched.status, `${patched.stdout}${patched.stderr}\n${diff}`).toBe(0);
        expect(readFileSync(file, 'utf8')).toBe(b.map((l) => `${l}\n`).join(''));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('labels its sides and gives each hunk three lines of context', () => {
    const a = Array.from({ length: 20 }, (_, i) => `l${i + 1}`);
    const b = [...a];
    b[9] = 'changed';
    expect(unifiedDiff(a, b, 'proposal', 'applied')).toBe(['--- proposal', '+++ applied', '@@ -7,7 +7,7 @@', ' l7', ' l8', ' l9', '-l10', '+changed', ' l11', ' l12', ' l13', ''].join('\n'));
  });
});
