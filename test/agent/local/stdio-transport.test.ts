// serve --stdio's transport (agent/local/stdio-transport.ts) on real Node streams: a message read
// from a line, each answer written as one line of its JSON, in pieces of at most 64 KiB whose
// buffers the next answer reuses, back-pressure (a send settles only once the channel drained),
// and the failures a send reports (a closed transport, a broken channel).
import { PassThrough, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { EncodingStdioTransport } from '../../../agent/local/stdio-transport.ts';

/** A channel that keeps what it is given and takes each write only when `release()` is called. */
function heldChannel(highWaterMark: number): { stream: Writable; chunks: Buffer[]; written: () => string; release: () => void } {
  const chunks: Buffer[] = [];
  const pending: (() => void)[] = [];
  const stream = new Writable({
    highWaterMark,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      pending.push(() => done());
    },
  });
  return {
    stream,
    chunks,
    written: () => Buffer.concat(chunks).toString('utf8'),
    release: () => {
      for (const done of pending.splice(0)) done();
    },
  };
}

const answer = (id: number, text: string): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });

describe('EncodingStdioTransport', () => {
  it('hands on a message read from a line, and writes each answer as one line of its JSON', async () => {
    const stdin = new PassThrough();
    const out = heldChannel(1 << 20);
    const transport = new EncodingStdioTransport(stdin, out.stream);
    const received: unknown[] = [];
    transport.onmessage = (message) => void received.push(message);
    await transport.start();
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await new Promise((r) => setImmediate(r));
    expect(received).toEqual([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);

    const text = 'héllo "wörld"\n日本語 😀'.repeat(5_000);
    const expected = JSON.stringify(answer(1, text)) + '\n';
    await transport.send(answer(1, text));
    // In pieces of at most 64 KiB (utf8.ts jsonChunks): the channel takes them one at a time.
    for (let taken = 0; out.written() !== expected && taken < 16; taken++) {
      out.release();
      await new Promise((r) => setImmediate(r));
    }
    expect(out.written()).toBe(expected);
    expect(out.chunks.length).toBeGreaterThan(1);
    expect(Math.max(...out.chunks.map((c) => c.length))).toBeLessThanOrEqual(64 * 1024);
    // The next answer, once those are written, is written from the same buffers: no garbage per message.
    out.release();
    await new Promise((r) => setImmediate(r));
    const buffers = new Set(out.chunks.map((c) => c.buffer));
    const before = out.chunks.length;
    await transport.send(answer(2, text));
    for (let taken = 0; out.chunks.length - before < 3 && taken < 16; taken++) {
      out.release();
      await new Promise((r) => setImmediate(r));
    }
    expect(out.chunks.slice(before).every((c) => buffers.has(c.buffer))).toBe(true);
    await transport.close();
  });

  it('settles a send only once a full channel has drained', async () => {
    const out = heldChannel(16);
    const transport = new EncodingStdioTransport(new PassThrough(), out.stream);
    await transport.start();
    let settled = false;
    const sent = transport.send(answer(2, 'x'.repeat(100))).then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    out.release();
    await sent;
    expect(settled).toBe(true);
    await transport.close();
  });

  it('refuses a send once closed, and reports a channel that broke', async () => {
    const closedOne = new EncodingStdioTransport(new PassThrough(), heldChannel(1 << 20).stream);
    let closed = false;
    closedOne.onclose = () => (closed = true);
    await closedOne.start();
    await closedOne.close();
    expect(closed).toBe(true);
    await expect(closedOne.send(answer(3, 'late'))).rejects.toThrow(/closed/);

    const broken = new Writable({ write: (_chunk, _encoding, done) => done(new Error('EPIPE: the client went away')) });
    const transport = new EncodingStdioTransport(new PassThrough(), broken);
    transport.onerror = () => undefined;
    await transport.start();
    await expect(transport.send(answer(4, 'lost'))).rejects.toThrow(/EPIPE/);
  });
});
