// The unified-diff parser behind apply_diff (pure): the hunks it builds, and every refusal, with a
// message that says what to fix. The schema refuses what the parser refuses.
import { describe, expect, it } from 'vitest';
import { applyDiff, parseArgs, parseUnifiedDiff, type ParsedDiff } from '../../protocol/index.ts';

const diff = (...lines: string[]): string => lines.join('\n') + '\n';

function hunks(text: string) {
  const parsed = parseUnifiedDiff(text);
  if (!parsed.ok) throw new Error(`expected a parse, got: ${parsed.message}`);
  return parsed.hunks;
}

function refusal(text: string): string {
  const parsed: ParsedDiff = parseUnifiedDiff(text);
  if (parsed.ok) throw new Error('expected a refusal');
  return parsed.message;
}

describe('parseUnifiedDiff', () => {
  it('skips the file header and builds old lines and edit runs, non-ASCII intact', () => {
    const [h, ...rest] = hunks(
      diff('diff --git a/x b/x', 'index 1..2 100644', '--- a/x', '+++ b/x', '@@ -2,5 +2,5 @@ fn héllo()', ' ctx 日本', '-old ü', '+new ü', '+more 🎉', ' mid', '-gone', ' end'),
    );
    expect(rest).toEqual([]);
    expect(h).toEqual({
      index: 1,
      header: '@@ -2,5 +2,5 @@',
      start: 2,
      old: ['ctx 日本', 'old ü', 'mid', 'gone', 'end'],
      edits: [
        { at: 1, remove: 1, add: ['new ü', 'more 🎉'] },
        { at: 3, remove: 1, add: [] },
      ],
      old_no_eol: false,
      new_no_eol: false,
    });
  });

  it('reads removed lines that look like file headers as removed lines', () => {
    const [h] = hunks(diff('@@ -1,2 +1 @@', '--- a Lua comment', '-++ not a header', '+x'));
    expect(h?.old).toEqual(['-- a Lua comment', '++ not a header']);
    expect(h?.edits).toEqual([{ at: 0, remove: 2, add: ['x'] }]);
  });

  it('counts an omitted count as 1, and places pure insertions after the header line', () => {
    expect(hunks(diff('@@ -3 +3 @@', '-a', '+b'))[0]).toMatchObject({ start: 3, old: ['a'] });
    expect(hunks(diff('@@ -5,0 +6,2 @@', '+x', '+y'))[0]).toMatchObject({ start: 6, old: [], edits: [{ at: 0, remove: 0, add: ['x', 'y'] }] });
    expect(hunks(diff('@@ -0,0 +1 @@', '+first'))[0]).toMatchObject({ start: 1, old: [] });
  });

  it('reads an empty line inside a hunk as an empty context line, also at the very end', () => {
    expect(hunks(diff('@@ -1,3 +1,3 @@', ' a', '', '-b', '+c'))[0]?.old).toEqual(['a', '', 'b']);
    expect(hunks('@@ -1,2 +1,2 @@\n-a\n+b\n\n')[0]?.old).toEqual(['a', '']);
    // Trailing blank lines after a complete hunk are ignored.
    expect(hunks('@@ -1 +1 @@\n-a\n+b\n\n\n')).toHaveLength(1);
  });

  it('reads "\\ No newline at end of file" on either side or both', () => {
    expect(hunks(diff('@@ -1 +1 @@', '-a', '\\ No newline at end of file', '+a'))[0]).toMatchObject({ old_no_eol: true, new_no_eol: false });
    expect(hunks(diff('@@ -1 +1 @@', '-a', '+b', '\\ No newline at end of file'))[0]).toMatchObject({ old_no_eol: false, new_no_eol: true });
    expect(hunks(diff('@@ -1,2 +1,2 @@', '-a', '+b', ' c', '\\ No newline at end of file'))[0]).toMatchObject({ old_no_eol: true, new_no_eol: true });
  });

  it('keeps several hunks in order', () => {
    const parsed = hunks(diff('@@ -1 +1 @@', '-a', '+b', '@@ -10,2 +10 @@', ' c', '-d'));
    expect(parsed.map((h) => [h.index, h.start])).toEqual([[1, 1], [2, 10]]);
  });

  it('refuses a diff without hunks, or with a malformed header', () => {
    expect(refusal('--- a/x\n+++ b/x\n')).toMatch(/no hunk/);
    expect(refusal('@@ -1 +1\n-a\n+b\n')).toMatch(/line 1 is not a valid hunk header/);
    expect(refusal('@@ -0,2 +1,2 @@\n-a\n-b\n+c\n+d\n')).toMatch(/numbered from 1/);
  });

  it('refuses bodies that disagree with the header counts, saying which hunk and what it has', () => {
    expect(refusal('@@ -1,4 +1,3 @@\n a\n-b\n-c\n+d')).toMatch(/ends early: hunk 1 .* has 3 old-side and 2 new-side lines, but its header says 4 and 3/);
    expect(refusal(diff('@@ -1,2 +1,1 @@', ' a', '+c', '-b'))).toMatch(/line 3 is one line too many: hunk 1 .* has 1 old-side and 1 new-side lines, but its header says 2 and 1/);
    expect(refusal(diff('@@ -1 +1 @@', '-a', '+b', ' extra'))).toMatch(/line 4 comes after hunk 1 has all the lines/);
    expect(refusal(diff('@@ -1,2 +1,2 @@', ' a', '@@ -5 +5 @@', '-e', '+f'))).toMatch(/ends early/);
  });

  it('refuses a second file, stray text and lines with an unknown prefix', () => {
    expect(refusal(diff('@@ -1 +1 @@', '-a', '+b', '--- a/y', '+++ b/y', '@@ -1 +1 @@', '-c', '+d'))).toMatch(/second file/);
    expect(refusal(diff('@@ -1 +1 @@', '-a', '+b', 'diff --git a/y b/y'))).toMatch(/second file/);
    expect(refusal(diff('@@ -1 +1 @@', '-a', '+b', 'some prose'))).toMatch(/line 4 is neither a hunk line nor a hunk header/);
    expect(refusal(diff('@@ -1,2 +1,2 @@', ' a', '*b'))).toMatch(/line 3, in hunk 1, starts with neither/);
  });

  it('refuses hunks out of order or overlapping', () => {
    expect(refusal(diff('@@ -5 +5 @@', '-a', '+b', '@@ -2 +2 @@', '-c', '+d'))).toMatch(/hunk 2 .* starts before hunk 1 ends/i);
    expect(refusal(diff('@@ -1,3 +1,3 @@', ' a', '-b', '+B', ' c', '@@ -3 +3 @@', '-c', '+C'))).toMatch(/starts before hunk 1 ends/);
  });

  it('refuses misplaced end-of-file markers', () => {
    expect(refusal(diff('@@ -1 +1 @@', '\\ No newline at end of file', '-a', '+b'))).toMatch(/must follow a line/);
    expect(refusal(diff('@@ -1,2 +1,2 @@', '-a', '\\ No newline at end of file', ' b', '+c'))).toMatch(/must follow the last line of its side/);
    expect(refusal(diff('@@ -1 +1 @@', '-a', '+b', '\\ No newline at end of file', '@@ -5 +5 @@', '-c', '+d'))).toMatch(/no hunk can follow/);
  });

  it('makes the apply_diff schema refuse what it refuses, with its message', () => {
    const outcome = parseArgs(applyDiff, { diff: 'not a diff', expected_changedtick: 1 });
    expect(outcome).toMatchObject({ ok: false, outcome: { ok: false, error: { code: 'INVALID_ARGUMENT', message: expect.stringMatching(/no hunk/) } } });
    expect(parseArgs(applyDiff, { diff: diff('@@ -1 +1 @@', '-a', '+b') })).toMatchObject({ ok: false });
    expect(parseArgs(applyDiff, { diff: diff('@@ -1 +1 @@', '-a', '+b'), expected_changedtick: 3 })).toMatchObject({ ok: true });
  });
});
