/**
 * A slow MCP answer as a started event stream. Streamable HTTP lets the server answer a POST that
 * carries a request with either `application/json` or `text/event-stream` (MCP 2025-11-25 and
 * 2026-07-28 "basic/transports/streamable-http", Sending Messages to the Server), and clients must
 * accept both. The local relay's `/mcp` (routes/mcp.ts) answers JSON, whole, at the end, unless its
 * answer is still pending after SLOW_ANSWER_MS; then the stream starts at once, its headers leave,
 * and the JSON-RPC answer follows as one `message` event when it is ready (the HTML Standard's
 * "Server-sent events" framing).
 *
 * Why: a client that gives up closes its connection, which cancels its call (spec 2026-07-28
 * "basic/patterns/cancellation"; `request.signal`, compatibility flag `enable_request_signal`).
 * The local relay's workerd runs Miniflare's entry worker in front of the Worker and does not tell
 * it that a client went away before its answer has started; a started stream, though, is cancelled
 * when the client closes it, and `onCancel` is told. A call waiting for the user's answer to a
 * prompt is the case that matters: without this its prompt stayed up after the client gave up.
 * Comment lines (`:`) every KEEPALIVE_MS keep a proxy's idle timer from closing the connection
 * meanwhile, and let a runtime that notices a closed connection only when it writes notice it.
 *
 * Fast answers, which are nearly all of them, stay JSON and pay nothing for this.
 */

/**
 * How long an answer may take before it is streamed instead (ms): longer than the Hub takes to
 * refuse a revoked token (whose answer is then a 401, which a started stream can no longer be),
 * shorter than a user takes to give up on a prompt.
 */
export const SLOW_ANSWER_MS = 1_000;

/** How often a streamed answer that is still pending sends a comment line (ms). */
export const KEEPALIVE_MS = 1_000;

/** The threshold passed before the answer settled. */
const SLOW = Symbol('slow');

export interface SlowAnswerOptions {
  /** Whether the request may be answered with a stream: one JSON-RPC request whose Accept lists text/event-stream. */
  readonly streamable: boolean;
  /** The JSON-RPC id of that request, for the error event when the answer fails. */
  readonly requestId: unknown;
  /** Told once when the client closes the stream before the answer was sent. */
  readonly onCancel: () => void;
  /**
   * What to send when the answer is ready, if it has not been streamed: the route's last word
   * (a refused token's 401, routes/mcp.ts). Not used once the stream has started, whose answer is
   * the MCP layer's own.
   */
  readonly finish: (answer: Response) => Response;
  /** Defaults to SLOW_ANSWER_MS and KEEPALIVE_MS (tests shorten them). */
  readonly slowAfterMs?: number;
  readonly keepaliveMs?: number;
}

/**
 * `answer` as JSON if it settles within the slow threshold (or may not be streamed), else a
 * `text/event-stream` Response started now that carries it when it settles.
 */
export async function answerOrStream(answer: Promise<Response>, options: SlowAnswerOptions): Promise<Response> {
  if (!options.streamable) return options.finish(await answer);
  let timer: ReturnType<typeof setTimeout> | null = null;
  const slow = new Promise<typeof SLOW>((resolve) => (timer = setTimeout(() => resolve(SLOW), options.slowAfterMs ?? SLOW_ANSWER_MS)));
  const settled = answer.then(
    () => 'settled' as const,
    () => 'settled' as const,
  );
  const first = await Promise.race([settled, slow]);
  clearTimeout(timer);
  // Settled in time (or failed: the caller's error handling sees the rejection).
  if (first !== SLOW) return options.finish(await answer);
  return eventStream(answer, options);
}

const encoder = new TextEncoder();

/** One SSE event of type `message` whose data is `json` (one `data:` line per line of it). */
function messageEvent(json: string): Uint8Array {
  return encoder.encode(`event: message\n${json.split('\n').map((line) => `data: ${line}`).join('\n')}\n\n`);
}

/** The JSON-RPC message an answer's body carries, or an internal error for `requestId` when it carries none. */
async function messageOf(answer: Promise<Response>, requestId: unknown): Promise<string> {
  try {
    const response = await answer;
    const text = await response.text();
    if (response.headers.get('Content-Type')?.includes('application/json') && text.trim() !== '') return text;
  } catch {
    // Falls through to the error below: the client is owed an answer to its request.
  }
  return JSON.stringify({ jsonrpc: '2.0', id: requestId ?? null, error: { code: -32603, message: 'Internal error: the answer was lost.' } });
}

function eventStream(answer: Promise<Response>, options: SlowAnswerOptions): Response {
  let done = false;
  let keepalive: ReturnType<typeof setInterval> | null = null;
  const stop = (): void => {
    done = true;
    clearInterval(keepalive);
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      keepalive = setInterval(() => {
        if (!done) controller.enqueue(encoder.encode(': waiting\n\n'));
      }, options.keepaliveMs ?? KEEPALIVE_MS);
      void messageOf(answer, options.requestId).then((message) => {
        if (done) return;
        stop();
        controller.enqueue(messageEvent(message));
        controller.close();
      });
    },
    cancel() {
      if (done) return;
      stop();
      options.onCancel();
    },
  });
  return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform' } });
}
