// The JSON-RPC message an MCP POST was answered with, as a Streamable HTTP client reads it: the
// whole body when the answer is `application/json`, the data of its `message` event when it is
// `text/event-stream` (the relay streams an answer that is slow: worker/http/slow-answer.ts).
// Runtime-neutral: used by tests in workerd and on Node.

/** The message text in `body`: itself, or the joined `data:` lines of its first `message` event. */
export function answerText(body: string): string {
  if (/^\s*[[{]/.test(body)) return body;
  for (const event of body.split(/\n\n/)) {
    const lines = event.split('\n');
    const type = lines.find((l) => l.startsWith('event:'))?.slice('event:'.length).trim() ?? 'message';
    const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice('data:'.length).replace(/^ /, ''));
    if (type === 'message' && data.length > 0) return data.join('\n');
  }
  throw new Error(`an event stream without a message: ${JSON.stringify(body.slice(0, 200))}`);
}

/** The JSON-RPC message `response` carries, in either form. */
export async function answerJson<T = unknown>(response: Response): Promise<T> {
  return JSON.parse(answerText(await response.text())) as T;
}
