/**
 * A parser for unified diffs of ONE file, as apply_diff takes them. Pure: text in, hunks out.
 *
 * What it accepts (GNU diffutils "Detailed Unified Format"; git's output is a superset of it):
 * - Anything before the first `@@` line is a preamble and is ignored: `diff --git`, `index`,
 *   `---` / `+++` file names. The target is the tool's `buffer` argument, never these names.
 * - Each hunk is `@@ -a[,b] +c[,d] @@[ text]` (a count left out means 1) and then exactly b lines of
 *   the old side (` ` context, `-` removed) and d of the new side (` ` context, `+` added); an empty
 *   line counts as an empty context line, as GNU patch reads it. `c` is not used: where the new lines
 *   land follows from `a`.
 * - `\ No newline at end of file` (any line starting with `\`) after the last line of a side says
 *   that side's file does not end with a newline; only the last hunk may carry it.
 * - Hunks are in order and do not overlap. Blank lines after the last hunk are ignored.
 * Anything else is an error that names the diff line and says what to fix: text between hunks,
 * a second file, body lines that disagree with the header's counts. Nothing is skipped silently,
 * so a mangled hunk can never be dropped while the rest applies.
 */

/** A run of removed and added lines between two context lines (or a hunk's ends). */
export interface DiffEdit {
  /** 0-based index, in the hunk's `old` lines, of the first line removed (or that the added lines go before). */
  at: number;
  /** How many lines of `old` it removes, from `at`. */
  remove: number;
  /** The lines it puts in their place. */
  add: string[];
}

/** One hunk, in the shape the editor applies it (field names are the editor side's). */
export interface DiffHunk {
  /** 1-based position of the hunk in the diff. */
  index: number;
  /** The hunk's `@@ -a,b +c,d @@`, for messages. */
  header: string;
  /**
   * The 1-based buffer line that `old[0]` should be on, from the header's `a`; for a hunk with no
   * old lines (b = 0: insert after line a), a + 1, the line its new lines go before.
   */
  start: number;
  /** What the buffer must hold from `start`: the context and removed lines, in order. */
  old: string[];
  edits: DiffEdit[];
  /** The old side / the new side ends without a newline at end of file. */
  old_no_eol: boolean;
  new_no_eol: boolean;
}

export type ParsedDiff =
  | { readonly ok: true; readonly hunks: DiffHunk[] }
  | { readonly ok: false; readonly message: string };

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const HEADER_FORMAT = 'a hunk header is "@@ -<old start>,<old count> +<new start>,<new count> @@"';

/** Lines that start another file's section (git, svn/cvs, or a `---`/`+++` pair). */
function startsAnotherFile(lines: readonly string[], i: number): boolean {
  const line = lines[i] ?? '';
  return /^(diff |Index: )/.test(line) || (line.startsWith('--- ') && (lines[i + 1] ?? '').startsWith('+++ '));
}

/** A refusal whose message goes back to the caller; anything else thrown is a bug. */
class DiffError extends Error {}

/** Parses `text`, a unified diff of one file; see the module header for what it accepts. */
export function parseUnifiedDiff(text: string): ParsedDiff {
  try {
    return { ok: true, hunks: parseHunks(text) };
  } catch (error) {
    if (error instanceof DiffError) return { ok: false, message: error.message };
    throw error;
  }
}

function parseHunks(text: string): DiffHunk[] {
  // A final newline leaves an empty last element: an empty context line if a hunk still needs
  // one, else a trailing blank line, which is ignored.
  const lines = text.split('\n');
  let i = lines.findIndex((l) => l.startsWith('@@'));
  if (i < 0) throw new DiffError(`The diff has no hunk: ${HEADER_FORMAT}, followed by its lines.`);

  const hunks: DiffHunk[] = [];
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (line.startsWith('@@')) {
      const { hunk, next } = parseHunk(lines, i, hunks.length + 1);
      const previous = hunks.at(-1);
      if (previous && hunk.start < previous.start + previous.old.length) {
        throw new DiffError(
          `Hunk ${hunk.index} (diff line ${i + 1}) starts before hunk ${previous.index} ends: hunks must be in file order and must not overlap.`,
        );
      }
      if (previous && (previous.old_no_eol || previous.new_no_eol)) {
        throw new DiffError(`Hunk ${previous.index} marks the end of the file ("\\ No newline at end of file"), so no hunk can follow it.`);
      }
      hunks.push(hunk);
      i = next;
    } else if (lines.slice(i).every((l) => l.trim() === '')) {
      break;
    } else if (startsAnotherFile(lines, i)) {
      throw new DiffError(`Diff line ${i + 1} starts a second file; apply_diff changes one buffer: send one diff per buffer.`);
    } else if (/^[ +-]/.test(line)) {
      throw new DiffError(
        `Diff line ${i + 1} comes after hunk ${hunks.length} has all the lines its header counts: fix the counts in its "@@" header.`,
      );
    } else {
      throw new DiffError(`Diff line ${i + 1} is neither a hunk line nor a hunk header (${HEADER_FORMAT}).`);
    }
  }
  return hunks;
}

/** Parses the hunk whose header is `lines[at]`; returns it and the index of the line after it. */
function parseHunk(lines: readonly string[], at: number, index: number): { hunk: DiffHunk; next: number } {
  const header = HUNK_HEADER.exec(lines[at] ?? '');
  if (!header) throw new DiffError(`Diff line ${at + 1} is not a valid hunk header: ${HEADER_FORMAT}.`);
  const oldStart = Number(header[1]);
  const oldCount = header[2] === undefined ? 1 : Number(header[2]);
  const newCount = header[4] === undefined ? 1 : Number(header[4]);
  if (oldCount > 0 && oldStart === 0) {
    throw new DiffError(`Hunk ${index} (diff line ${at + 1}) has old lines but starts at line 0: lines are numbered from 1.`);
  }

  const hunk: DiffHunk = {
    index,
    header: header[0],
    start: oldCount === 0 ? oldStart + 1 : oldStart,
    old: [],
    edits: [],
    old_no_eol: false,
    new_no_eol: false,
  };
  let oldLeft = oldCount;
  let newLeft = newCount;
  let edit: DiffEdit | undefined;
  let previousOp: string | undefined;
  let i = at + 1;
  const counts = (): string =>
    `hunk ${index} (diff line ${at + 1}) has ${oldCount - oldLeft} old-side and ${newCount - newLeft} new-side lines, ` +
    `but its header says ${oldCount} and ${newCount}: fix the counts in its "@@" header`;

  while (oldLeft > 0 || newLeft > 0 || (lines[i] ?? '').startsWith('\\')) {
    const line = lines[i];
    if (line === undefined || line.startsWith('@@')) throw new DiffError(`The diff ends early: ${counts()}.`);
    if (line.startsWith('\\')) {
      if (previousOp === undefined) throw new DiffError(`Diff line ${i + 1}: a "\\" line must follow a line of the hunk it marks.`);
      if (previousOp !== '+') hunk.old_no_eol = true;
      if (previousOp !== '-') hunk.new_no_eol = true;
      i++;
      continue;
    }
    // GNU patch reads an empty line inside a hunk as an empty context line (editors strip the space).
    const op = line === '' ? ' ' : line.charAt(0);
    const body = line.slice(1);
    if (op !== ' ' && op !== '-' && op !== '+') {
      throw new DiffError(`Diff line ${i + 1}, in hunk ${index}, starts with neither " ", "-", "+" nor "\\".`);
    }
    const onOld = op !== '+';
    const onNew = op !== '-';
    if ((onOld && hunk.old_no_eol) || (onNew && hunk.new_no_eol)) {
      throw new DiffError(`Diff line ${i + 1}: "\\ No newline at end of file" must follow the last line of its side of the hunk.`);
    }
    if ((onOld && oldLeft === 0) || (onNew && newLeft === 0)) throw new DiffError(`Diff line ${i + 1} is one line too many: ${counts()}.`);
    if (op === ' ') {
      edit = undefined;
    } else {
      if (!edit) {
        edit = { at: hunk.old.length, remove: 0, add: [] };
        hunk.edits.push(edit);
      }
      if (op === '-') edit.remove++;
      else edit.add.push(body);
    }
    if (onOld) {
      hunk.old.push(body);
      oldLeft--;
    }
    if (onNew) newLeft--;
    previousOp = op;
    i++;
  }
  return { hunk, next: i };
}
