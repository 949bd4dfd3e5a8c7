/**
 * The reason a connection failed, as a person wants it in a log line: the system error under
 * fetch's "fetch failed" or a socket's error (`connect ECONNREFUSED 127.0.0.1:8787`,
 * `getaddrinfo ENOTFOUND relay.example`), a timeout, or the error's own message. Pure.
 */

/** The most specific message in `error`'s chain of causes. */
export function describeNetworkError(error: unknown): string {
  let current: unknown = error;
  let message = String(error);
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    message = current.name === 'TimeoutError' ? 'timed out' : current.message || message;
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && !message.includes(code)) message = `${message} (${code})`;
    if (current.cause === undefined) break;
    current = current.cause;
  }
  return message;
}
