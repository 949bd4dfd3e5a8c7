/** Text as one word for a POSIX shell, for the commands the agent tells the user to run. */

/** `text` as one word for a POSIX shell (single quotes; a quote inside as `'\''`). */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
