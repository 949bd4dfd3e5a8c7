/** Ctrl-C and `kill` for the long-running commands. */

/**
 * Settles on the first SIGINT or SIGTERM. Call it before any slow start-up work: until a listener
 * exists, Node's default action for these signals ends the process on the spot, skipping cleanup.
 */
export function interrupted(): Promise<'interrupted'> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('interrupted'));
    process.once('SIGTERM', () => resolve('interrupted'));
  });
}
