/**
 * Text from elsewhere as a person must see it before they approve it (README "Permissions"): what
 * an editor's prompt shows (agent/editors/prompts.ts), and what the relay's Pending page shows of
 * the same decision (worker/pages/pending.ts), so that nothing can hide in either. Pure; runs on
 * both sides.
 */

/**
 * Characters a terminal shows as nothing, or as something else: line and paragraph separators,
 * format characters (zero-width, bidi controls, soft hyphen, tags), C1 controls, spaces other than
 * U+0020, private-use and unassigned code points, variation selectors, and the letters and
 * symbols that draw as blanks (Hangul fillers, the Braille blank).
 */
const INVISIBLE = /[\p{Zl}\p{Zp}\p{Cf}\p{Co}\p{Cn}\p{Cs}\u0080-\u009f\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u3164\uffa0\u2800\p{Variation_Selector}]|\u115f|\u1160/u;

/**
 * A run of blanks wider than BLANK_RUN_MAX columns (a tab counts 8) shows as one mark that counts
 * it; as indentation (a run that starts within the first INDENT_OFFSET characters of a line,
 * after a diff's `+`/`-` marker, say), one wider than INDENT_MAX.
 */
const BLANK_RUN_MAX = 16;
const INDENT_MAX = 48;
const INDENT_OFFSET = 2;
const BLANK_RUNS = /[ \t]{3,}/g;

/** The mark a run of blanks at `offset` shows as (`⟨4,000 spaces⟩`, `⟨12 tabs⟩`, `⟨40 blanks (spaces and tabs)⟩`), or the run itself. */
function blankRun(run: string, offset: number): string {
  const tabs = run.split('\t').length - 1;
  if (run.length + 7 * tabs <= (offset <= INDENT_OFFSET ? INDENT_MAX : BLANK_RUN_MAX)) return run;
  const count = run.length.toLocaleString('en-US');
  if (tabs === 0) return `⟨${count} spaces⟩`;
  if (tabs === run.length) return `⟨${count} tabs⟩`;
  return `⟨${count} blanks (spaces and tabs)⟩`;
}

/**
 * `s` as a prompt shows it, with nothing hidden in it: C0 controls as ^X (DEL as ^?), other
 * invisible characters (INVISIBLE) as ⟨U+XXXX⟩, and a wide run of spaces and tabs (BLANK_RUN_MAX)
 * as one counting mark.
 */
export function visible(s: string): string {
  let out = '';
  for (const c of s) {
    const code = c.codePointAt(0) ?? 0;
    if (code === 0x7f) out += '^?';
    else if (code < 0x20 && c !== '\t') out += `^${String.fromCharCode(code + 64)}`;
    else if (INVISIBLE.test(c)) out += `⟨U+${code.toString(16).toUpperCase().padStart(4, '0')}⟩`;
    else out += c;
  }
  return out.replace(BLANK_RUNS, blankRun);
}
