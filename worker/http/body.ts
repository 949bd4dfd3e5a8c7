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
