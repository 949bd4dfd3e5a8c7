/**
 * Node's warnings in what a process wrote to stderr: `(node:PID) NameWarning: message`, or with a
 * code, `(node:PID) [DEP0040] DeprecationWarning: message` (Node's `process.emitWarning` as it
 * prints them). The agent's log is the user's to read: a leak warning or a deprecation in it is a
 * defect, so the process helpers refuse to stop quietly over one.
 */
const WARNING = /^\(node:\d+\) (?:\[[A-Z0-9_]+\] )?\w*Warning: .*$/gm;

/** The warning lines in `stderr`, in order. */
export function nodeWarnings(stderr: string): string[] {
  return stderr.match(WARNING) ?? [];
}

/** Throws, naming `what` and each warning, when `stderr` holds any. */
export function assertNoNodeWarnings(stderr: string, what: string): void {
  const found = nodeWarnings(stderr);
  if (found.length > 0) throw new Error(`${what} printed Node warnings:\n${found.join('\n')}`);
}
