/**
 * `waitFor`: polls until a condition holds. The timeout is a liveness bound (fail rather than hang),
 * never a timing assertion: on a loaded machine a slow pass is still a pass.
 */
import { createConnection } from 'node:net';

/**
 * Polls `check` until it returns a value other than undefined; fails after `timeoutMs`, naming
 * `what` (a function is called at the failure, so it can tell what was last seen). The pauses
 * grow from 10 ms to 100 ms: what comes at once is seen at once, and a long wait (a prompt that
 * arms after 2 s, a language server analysing) costs a poll every 100 ms rather than every 25, each
 * an editor round trip or a `tmux capture-pane`. prompts.test took 28.7 CPU-s before, 22.2 after;
 * prompt-screen.test 26.5 and 19.4; each about a second longer.
 */
export async function waitFor<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 10_000,
  what: string | (() => string) = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 10; ; pause = Math.min(100, pause * 1.5)) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, pause));
  }
}

/**
 * Waits until a unix socket accepts a connection. The socket file appears at bind(2), before the
 * process calls listen(2); a connection in between is refused, so the file alone proves nothing.
 */
export async function listeningOn(path: string, timeoutMs = 10_000, what = `a listener on ${path}`): Promise<void> {
  await waitFor(
    () =>
      new Promise<true | undefined>((resolve) => {
        const probe = createConnection(path);
        probe.once('connect', () => (probe.destroy(), resolve(true)));
        probe.once('error', () => resolve(undefined));
      }),
    timeoutMs,
    what,
  );
}
