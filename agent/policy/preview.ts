/**
 * What a call would do, in words a person can judge at a prompt: the lines of the tool's own
 * preview (its record, editors/tools/tool.ts `preview`: the command text for exec, the diff or
 * replaced text for writes, the path for save and open), made into the prompt's text.
 *
 * Contract: pure. Caps the text at PREVIEW_LIMITS: whole lines are dropped from the end with a
 * last line "… (N more lines)", and an over-long line is cut with "…". It reads no editor, so a
 * preview shows what the model sent (commands, keys, new text), never a file's content.
 */

/** Caps of a preview. */
export const PREVIEW_LIMITS = {
  /** Lines shown; the rest are counted on a last line. */
  maxLines: 20,
  /** Characters shown in all, line breaks included. */
  maxChars: 2_000,
  /** Characters of one line. */
  lineChars: 200,
} as const;

/** `line` cut to PREVIEW_LIMITS.lineChars characters (code points), marked with "…". */
function cutLine(line: string): string {
  const chars = [...line];
  return chars.length <= PREVIEW_LIMITS.lineChars ? line : `${chars.slice(0, PREVIEW_LIMITS.lineChars - 1).join('')}…`;
}

/** The prompt text of a tool's preview `lines`: at most PREVIEW_LIMITS.maxLines lines and maxChars characters. */
export function previewOf(preview: readonly string[]): string {
  const lines = preview.map(cutLine);
  const kept: string[] = [];
  let chars = 0;
  for (const [i, line] of lines.entries()) {
    const left = lines.length - i;
    // Room for the line, and for the "more lines" note when it is not the last one.
    const note = left > 1 ? `… (${left} more lines)`.length + 1 : 0;
    if (kept.length === PREVIEW_LIMITS.maxLines - (left > 1 ? 1 : 0) || chars + line.length + 1 + note > PREVIEW_LIMITS.maxChars) {
      kept.push(`… (${left} more ${left === 1 ? 'line' : 'lines'})`);
      break;
    }
    kept.push(line);
    chars += line.length + 1;
  }
  return kept.join('\n');
}
