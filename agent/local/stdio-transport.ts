/**
 * The transport `serve --stdio` runs on: the SDK's StdioServerTransport reads the lines that
 * stdio-gate.ts passes, starts and closes the session, and each outgoing message is written as
 * the bytes of its JSON (spec 2026-07-28 "basic/transports/stdio": one JSON-RPC message a line,
 * no embedded newline, which JSON.stringify never writes) made by jsonChunks (utf8.ts), never as
 * one string of the whole message, in pieces whose buffers are reused once written. Back-pressure as the SDK's own send keeps it: a write the
 * channel cannot take yet settles on 'drain', a failed one rejects.
 */
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { jsonChunks } from '../utf8.ts';

export class EncodingStdioTransport implements Transport {
  readonly #reader: StdioServerTransport;
  readonly #stdout: Writable;
  #closed = false;
  onclose?: () => void;

  constructor(stdin: Readable, stdout: Writable) {
    this.#reader = new StdioServerTransport(stdin, stdout);
    this.#stdout = stdout;
    this.#reader.onclose = () => {
      this.#closed = true;
      this.onclose?.();
    };
  }

  get onmessage(): Transport['onmessage'] {
    return this.#reader.onmessage;
  }
  set onmessage(handler: Transport['onmessage']) {
    this.#reader.onmessage = handler;
  }
  get onerror(): Transport['onerror'] {
    return this.#reader.onerror;
  }
  set onerror(handler: Transport['onerror']) {
    this.#reader.onerror = handler;
  }

  start(): Promise<void> {
    return this.#reader.start();
  }

  close(): Promise<void> {
    return this.#reader.close();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the stdio transport is closed'));
    const stdout = this.#stdout;
    return new Promise((resolve, reject) => {
      const settle = (error?: Error | null): void => {
        stdout.off('error', settle);
        stdout.off('drain', settle);
        if (error) reject(error);
        else resolve();
      };
      stdout.once('error', settle);
      // One message's pieces (utf8.ts jsonChunks), written one after the other in this turn, so
      // that no other message comes between them; their buffers serve again once the last is
      // written (a stream calls its writes back in order).
      const chunks = jsonChunks(message, '\n');
      let taken = true;
      chunks.pieces.forEach((piece, i) => {
        taken = i === chunks.pieces.length - 1 ? stdout.write(piece, () => chunks.release()) : stdout.write(piece);
      });
      if (taken) settle();
      else stdout.once('drain', settle);
    });
  }
}
