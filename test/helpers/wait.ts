/**
 * `waitFor`: polls until a condition holds. The timeout is a liveness bound (fail rather than hang),
 * never a timing assertion: on a loaded machine a slow pass is still a pass.
 */

/**
 * Polls `check` until it returns a value other than undefined; fails after `timeoutMs`, naming
 * `what` (a function is called at the failure, so it can tell what was last seen).
 */
export async function waitFor<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 10_000,
  what: string | (() => string) = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
