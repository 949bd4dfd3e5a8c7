/**
 * `postAlone`: a POST on a connection of its own, closed after the answer (node:http, no keep-alive
 * agent), for requests a server may refuse without reading their body. Such a server closes the
 * connection behind its answer (the relay's workerd says nothing of it, worker/http/body.ts
 * drainUnread), so a pooled connection would fail the next request sent on it; and a client still
 * uploading when it closes may see the reset rather than the answer, unless it asks first.
 */
import { request } from 'node:http';

export interface AloneAnswer {
  readonly response: Response;
  /** Whether the server answered 100 (Continue), asking for the body. */
  readonly continued: boolean;
}

export interface AloneOptions {
  /**
   * Send `Expect: 100-continue` and the body only once the server answers 100 (RFC 9110 §10.1.1),
   * as curl does for large bodies: a refusal of the declared size then reaches a client that has
   * sent none of the body. Unlike curl, it never gives up waiting and sends the body anyway: for
   * requests the server refuses, or a server known to answer 100 (local workerd never does).
   */
  readonly expectContinue?: boolean;
}

/** POSTs `body` to `url` with `headers` (Content-Length added). */
export function postAlone(url: string, body: string, headers: Record<string, string>, options: AloneOptions = {}): Promise<AloneAnswer> {
  const expectContinue = options.expectContinue ?? false;
  return new Promise((resolve, reject) => {
    let continued = false;
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)), ...(expectContinue ? { Expect: '100-continue' } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({ response: new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0 }), continued });
          // The answer is in, so the connection goes, and with it a body the server never asked for.
          req.destroy();
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (!expectContinue) return void req.end(body);
    req.on('continue', () => {
      continued = true;
      req.end(body);
    });
    req.flushHeaders();
  });
}
