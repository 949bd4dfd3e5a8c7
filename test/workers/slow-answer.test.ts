// A slow MCP answer as a started event stream (worker/http/slow-answer.ts), in workerd: what a
// client reads in each case, and that closing the stream is told as the client going away. The
// answers here are promises the test settles itself, before or after the stream has started, so
// no case depends on how fast the machine is. The whole path on the local relay (a real client
// closing its stream cancels the call and its prompt in a real Neovim) is e2e/cancel.test.ts.
import { describe, expect, it } from 'vitest';
import { answerOrStream, type SlowAnswerOptions } from '../../worker/http/slow-answer.ts';
import { answerText } from '../helpers/mcp-answer.ts';

const RESULT = JSON.stringify({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'done' }] } });
const json = (text: string, status = 200): Response => new Response(text, { status, headers: { 'Content-Type': 'application/json' } });

function options(overrides: Partial<SlowAnswerOptions> = {}): SlowAnswerOptions & { cancelled: () => number } {
  let cancels = 0;
  return {
    streamable: true,
    requestId: 7,
    onCancel: () => (cancels += 1),
    finish: (response) => response,
    slowAfterMs: 20,
    keepaliveMs: 10,
    cancelled: () => cancels,
    ...overrides,
  };
}

/** An answer the test settles when it wants. */
function pending(): { answer: Promise<Response>; settle: (r: Response) => void; fail: (e: Error) => void } {
  let settle!: (r: Response) => void;
  let fail!: (e: Error) => void;
  const answer = new Promise<Response>((resolve, reject) => ((settle = resolve), (fail = reject)));
  return { answer, settle, fail };
}

describe('answerOrStream', () => {
  it('an answer ready in time stays JSON, through finish', async () => {
    const res = await answerOrStream(Promise.resolve(json(RESULT)), options({ finish: (r) => new Response(r.body, { status: 201, headers: r.headers }) }));
    expect(res.status).toBe(201);
    expect(res.headers.get('Content-Type')).toBe('application/json');
    expect(await res.text()).toBe(RESULT);
  });

  it('a slow answer starts an event stream whose message event is the answer, after comment lines', async () => {
    const { answer, settle } = pending();
    const o = options({ finish: () => json('finish must not be used once streaming', 401) });
    const res = await answerOrStream(answer, o);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe(': waiting\n\n');
    settle(json(RESULT));
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toMatch(/event: message\ndata: .*\n\n$/);
    expect(answerText(first + rest)).toBe(RESULT);
    expect(o.cancelled()).toBe(0);
  });

  it('closing the stream before the answer is told once, and the late answer goes nowhere', async () => {
    const { answer, settle } = pending();
    const o = options();
    const res = await answerOrStream(answer, o);
    await res.body!.cancel();
    expect(o.cancelled()).toBe(1);
    settle(json(RESULT));
    await answer;
    expect(o.cancelled()).toBe(1);
  });

  it('a slow answer that fails or carries no JSON-RPC message becomes an internal error for the request id', async () => {
    for (const end of [(p: ReturnType<typeof pending>) => p.fail(new Error('lost')), (p: ReturnType<typeof pending>) => p.settle(new Response('oops', { status: 500 }))]) {
      const p = pending();
      const res = await answerOrStream(p.answer, options());
      end(p);
      expect(JSON.parse(answerText(await res.text()))).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'Internal error: the answer was lost.' } });
    }
  });

  it('an answer that may not be streamed waits, JSON, however slow', async () => {
    const { answer, settle } = pending();
    const res = answerOrStream(answer, options({ streamable: false }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    settle(json(RESULT));
    expect((await res).headers.get('Content-Type')).toBe('application/json');
  });

  it('a failure within the threshold reaches the caller', async () => {
    await expect(answerOrStream(Promise.reject(new Error('broken')), options())).rejects.toThrow('broken');
  });
});
