/**
 * One Vim JSON channel (`:h channel-use`, JSON mode) over a socket: newline-terminated JSON
 * messages `[id, payload]`. Vim's own messages carry positive ids and go to `onMessage`; the agent's
 * requests are `["call", fn, args, -n]` (`["expr", expr, -n]`), answered `[-n, result]`. Owns
 * framing and request bookkeeping only: it never interprets a payload. A message longer than
 * VIM_MAX_MESSAGE_BYTES, or one that is not JSON, closes the channel.
 */
import type { Socket } from 'node:net';
import { EditorGone } from '../call.ts';
import { Waiting, type Rejectable } from '../waiting.ts';

/** A request waiting for Vim's answer. */
interface Pending extends Rejectable {
  resolve(value: unknown): void;
}

/** The largest message accepted from Vim (bytes, newline excluded). */
export const VIM_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** A JSON channel to one Vim; see the module header. */
export class VimChannel {
  /** Settles when the socket has closed. */
  readonly closed: Promise<void>;
  readonly #socket: Socket;
  readonly #waiting = new Waiting<Pending>();
  #onMessage: (id: number, payload: unknown) => void = () => {};
  #nextId = 1;
  #chunks: Buffer[] = [];
  #buffered = 0;
  #isClosed = false;

  constructor(socket: Socket) {
    this.#socket = socket;
    socket.setNoDelay(true);
    this.closed = new Promise((resolve) => {
      socket.once('close', () => {
        this.#isClosed = true;
        for (const pending of this.#waiting.drain()) pending.reject(new EditorGone('Vim channel'));
        resolve();
      });
    });
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
  }

  get isClosed(): boolean {
    return this.#isClosed;
  }

  /** Receives Vim's own messages (positive or zero ids). Replaces any earlier handler. */
  onMessage(handler: (id: number, payload: unknown) => void): void {
    this.#onMessage = handler;
  }

  /** Sends `[id, payload]`, e.g. the answer to one of Vim's requests. */
  send(id: number, payload: unknown): void {
    this.#write([id, payload]);
  }

  /** Calls the Vim function `fn` with `args` and resolves with its result. */
  call(fn: string, args: unknown[], signal: AbortSignal): Promise<unknown> {
    return this.#request((id) => ['call', fn, args, id], signal);
  }

  /** Calls the Vim function `fn` with `args` and asks for no answer (`:h channel-commands`, "call"). */
  notify(fn: string, args: unknown[]): void {
    this.#write(['call', fn, args]);
  }

  /** Evaluates the Vim expression `expr` and resolves with its value. */
  expr(expr: string, signal: AbortSignal): Promise<unknown> {
    return this.#request((id) => ['expr', expr, id], signal);
  }

  /** Closes the socket; pending requests reject with EditorGone. */
  async close(): Promise<void> {
    this.#socket.destroy();
    await this.closed;
  }

  #request(message: (id: number) => unknown[], signal: AbortSignal): Promise<unknown> {
    if (this.#isClosed) return Promise.reject(new EditorGone('Vim channel'));
    if (signal.aborted) return Promise.reject(signal.reason);
    const id = -this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#waiting.add(id, { resolve, reject }, signal);
      this.#write(message(id));
    });
  }

  #write(message: unknown): void {
    if (!this.#isClosed) this.#socket.write(JSON.stringify(message) + '\n');
  }

  #onData(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      this.#chunks.push(chunk.subarray(start, nl));
      const line = Buffer.concat(this.#chunks).toString('utf8');
      this.#chunks = [];
      this.#buffered = 0;
      start = nl + 1;
      if (line.trim() !== '') this.#onLine(line);
      // Nothing after a refusal or a protocol error reaches a handler ('close' comes later).
      if (this.#socket.destroyed) return;
    }
    this.#chunks.push(chunk.subarray(start));
    this.#buffered += chunk.length - start;
    if (this.#buffered > VIM_MAX_MESSAGE_BYTES) this.#socket.destroy();
  }

  #onLine(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.#socket.destroy();
      return;
    }
    if (!Array.isArray(message) || message.length !== 2 || typeof message[0] !== 'number') {
      this.#socket.destroy();
      return;
    }
    const [id, payload] = message as [number, unknown];
    if (id < 0) {
      this.#waiting.settle(id)?.resolve(payload);
    } else {
      this.#onMessage(id, payload);
    }
  }
}
