/**
 * Small pieces of the prompt previews (EditorTool.preview): how a person reads a buffer argument,
 * a block of text, a count. Pure.
 */

/** A buffer argument as a person reads it: the path, `buffer 3`, or `the current buffer`. */
export function bufferName(ref: unknown): string {
  if (typeof ref === 'number') return `buffer ${ref}`;
  if (typeof ref === 'string') return ref;
  return 'the current buffer';
}

/** `prefix` before each line of `body` (a trailing newline ends the last line, it adds none). */
export function prefixed(prefix: string, body: string): string[] {
  return body.replace(/\n$/, '').split('\n').map((l) => prefix + l);
}

/** The number of lines of `body`, as prefixed() shows them. */
export function lineCount(body: string): number {
  return body === '' ? 0 : body.replace(/\n$/, '').split('\n').length;
}

/** `3 lines`, `1 step`. */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
