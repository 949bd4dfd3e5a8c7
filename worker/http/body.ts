/**
 * Reading a request body under a size cap. The declared Content-Length is checked before reading
 * anything; the stream is then counted as it arrives, so a body without Content-Length (chunked)
 * or one that lies about it is cut off as soon as it passes the cap.
 */
import { contentLengthOver } from '../../protocol/http/mcp-edge.ts';

export type CappedBody = { ok: true; text: string } | { ok: false; tooLarge: true };

/** Whether the declared Content-Length alone is over `maxBytes` (a missing header is not). */
export function declaredTooLarge(request: Request, maxBytes: number): boolean {
  return contentLengthOver(request.headers.get('Content-Length'), maxBytes);
}

/** Reads the body as UTF-8 text, refusing more than `maxBytes` bytes. */
export async function readCapped(request: Request, maxBytes: number): Promise<CappedBody> {
  if (declaredTooLarge(request, maxBytes)) return { ok: false, tooLarge: true };
  if (request.body === null) return { ok: true, text: '' };
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let received = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > maxBytes) {
      await reader.cancel();
      return { ok: false, tooLarge: true };
    }
    text += decoder.decode(value, { stream: true });
  }
  return { ok: true, text: text + decoder.decode() };
}

/** The most of a body nobody read that the relay reads away after answering (drainUnread). */
export const DRAIN_MAX_BYTES = 64 * 1024;

/**
 * Reads away a request body the answer did not need (a refusal before the body: a foreign Host,
 * the wrong content type), up to DRAIN_MAX_BYTES. Local workerd closes a keep-alive connection
 * whose request body was left unread, without `Connection: close`: the client's next request on
 * it would fail with a reset. A larger body is left, and its connection with it. Best effort:
 * the caller starts it before its answer goes out and lets it finish in `waitUntil`; workerd ends
 * a read still waiting for the client when the answer is sent ("Can't read from request stream
 * after response has been sent"), and that connection closes as before. A small body, which
 * arrives with its headers, is read at once.
 */
export async function drainUnread(request: Request): Promise<void> {
  if (request.body === null || request.bodyUsed || declaredTooLarge(request, DRAIN_MAX_BYTES)) return;
  const reader = request.body.getReader();
  let received = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      received += value.byteLength;
      if (received > DRAIN_MAX_BYTES) return void (await reader.cancel());
    }
  } catch {
    // The client went away: nothing left to keep.
  }
}
