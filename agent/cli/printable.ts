/**
 * Text from elsewhere as the CLI prints it: an editor's name and directory, a relay's answers, the
 * audit log, the policy file, error messages that quote any of them. Every character a terminal
 * would act on or hide — the C0 and C1 controls (ESC starts sequences that move the cursor, clear
 * the screen, set the window title; CR overwrites a line), DEL, and the Unicode format characters
 * that reorder or hide text (bidi overrides and isolates, zero-width characters; Unicode category
 * Cf), and the line and paragraph separators — is printed as a visible escape (`\x1b`, `\u202e`),
 * so that the terminal shows the text and obeys none of it. Every command prints such text
 * through `printable` (or `printableLines` for a message of several lines).
 */

const HIDDEN = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

function escape(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
}

/** `text` with every character the header names as its escape: one line, as a table cell needs. */
export function printable(text: string): string {
  return text.replace(HIDDEN, escape);
}

/** The same, keeping line breaks: for a message whose lines are its own (an error naming a file's problems). */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}
