/**
 * One msgpack-RPC connection to a Neovim, through the `neovim` npm client.
 *
 * Contract: `NvimConnection.open` checks that the address speaks msgpack-RPC (a throwaway
 * connection answering `nvim_get_api_info`) before handing a socket to the client, because the
 * client turns malformed input into an unhandled rejection that would end the agent. Every
 * request honours an AbortSignal and rejects with `EditorGone` as soon as the socket closes: a
 * request that makes Neovim exit never gets an answer, and nothing here waits forever. The client
 * gets our logger (so it never patches `console`), and it never writes to stdout.
 */
import { createConnection, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { format } from 'node:util';
import { attach, type NeovimClient } from 'neovim';
import { silentLogger, type Logger } from '../../log.ts';
import { EditorError, EditorGone } from '../call.ts';
import { parseAddress, type NvimAddress } from './address.ts';


/** The address answered, but not as a Neovim would. */
export class NotNeovim extends Error {
  constructor(address: string) {
    super(`${address} does not speak msgpack-RPC.`);
    this.name = 'NotNeovim';
  }
}

type ClientLogger = NonNullable<NonNullable<Parameters<typeof attach>[0]['options']>['logger']>;

/** `[0, 0, "nvim_get_api_info", []]`: a msgpack-RPC request with id 0. */
const API_INFO_REQUEST = Buffer.concat([Buffer.from([0x94, 0x00, 0x00, 0xb1]), Buffer.from('nvim_get_api_info'), Buffer.from([0x90])]);
/** `[1, 0, nil, ...`: the start of a successful response to request 0. */
const RESPONSE_PREFIX = Buffer.from([0x94, 0x01, 0x00, 0xc0]);

/** How to open a connection. */
export interface OpenOptions {
  /** Aborts connecting (not the connection once open). */
  signal: AbortSignal;
  logger?: Logger;
}

/** A live msgpack-RPC connection to one Neovim; see the module header. */
export class NvimConnection {
  /** Settles when the socket has closed, for whatever reason. */
  readonly closed: Promise<void>;
  readonly #socket: Socket;
  readonly #client: NeovimClient;
  readonly #onClose = new Set<() => void>();
  #isClosed = false;

  private constructor(socket: Socket, logger: Logger) {
    this.#socket = socket;
    // The client reads from a stream that ends, and never errors, when the socket goes away.
    const reader = new PassThrough();
    socket.on('data', (chunk: Buffer) => reader.write(chunk));
    socket.on('error', (error) => logger.debug('neovim socket error', { error: error.message }));
    this.closed = new Promise((resolve) => {
      socket.once('close', () => {
        this.#isClosed = true;
        if (!reader.writableEnded) reader.end();
        for (const reject of this.#onClose) reject();
        this.#onClose.clear();
        resolve();
      });
    });
    this.#client = attach({ reader, writer: socket, options: { logger: clientLogger(logger) } });
  }

  /** Connects to `address` (socket path or host:port) once it has answered like a Neovim. */
  static async open(address: string, { signal, logger = silentLogger }: OpenOptions): Promise<NvimConnection> {
    const target = parseAddress(address);
    await handshake(address, target, signal);
    return new NvimConnection(await connect(target, signal), logger);
  }

  get isClosed(): boolean {
    return this.#isClosed;
  }

  /**
   * Sends one request. Rejects with `signal.reason` on abort, `EditorGone` when the socket
   * closes first, `EditorError` when Neovim answers with an error.
   */
  request(method: string, args: unknown[], signal?: AbortSignal): Promise<unknown> {
    if (this.#isClosed) return Promise.reject(new EditorGone('Neovim'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const settle = (finish: () => void): void => {
        this.#onClose.delete(onClose);
        signal?.removeEventListener('abort', onAbort);
        finish();
      };
      const onClose = (): void => settle(() => reject(new EditorGone('Neovim')));
      const onAbort = (): void => settle(() => reject(signal?.reason));
      this.#onClose.add(onClose);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#client.request(method, args).then(
        (value: unknown) => settle(() => resolve(value)),
        (error: unknown) => settle(() => reject(new EditorError(error instanceof Error ? error.message : String(error)))),
      );
    });
  }

  /** Calls `listener` for every notification Neovim sends on this channel. */
  onNotification(listener: (method: string, args: unknown[]) => void): void {
    this.#client.on('notification', listener);
  }

  /** Closes the socket; pending requests reject with `EditorGone`. */
  async close(): Promise<void> {
    this.#socket.destroy();
    await this.closed;
  }
}

/** Connects a socket. Socket errors after that are the caller's to handle (a no-op guard stays). */
function connect(target: NvimAddress, signal: AbortSignal): Promise<Socket> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const socket = 'path' in target ? createConnection(target.path) : createConnection(target.port, target.host);
    let pending = true;
    const done = (error?: unknown): void => {
      if (!pending) return;
      pending = false;
      signal.removeEventListener('abort', onAbort);
      if (error === undefined) return resolve(socket);
      socket.destroy();
      reject(error);
    };
    const onAbort = (): void => done(signal.reason);
    socket.once('connect', () => done());
    socket.on('error', done);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Resolves when `target` answers `nvim_get_api_info` with a msgpack-RPC response. */
async function handshake(address: string, target: NvimAddress, signal: AbortSignal): Promise<void> {
  const socket = await connect(target, signal);
  let onAbort = (): void => {};
  try {
    await new Promise<void>((resolve, reject) => {
      let received = Buffer.alloc(0);
      onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      socket.on('error', reject);
      socket.on('close', () => reject(new NotNeovim(address)));
      socket.on('data', (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        if (received.length < RESPONSE_PREFIX.length) return;
        if (received.subarray(0, RESPONSE_PREFIX.length).equals(RESPONSE_PREFIX)) resolve();
        else reject(new NotNeovim(address));
      });
      socket.write(API_INFO_REQUEST);
    });
  } finally {
    signal.removeEventListener('abort', onAbort);
    socket.destroy();
  }
}

/** The client's logger: its chatter dropped, its warnings and errors at our debug level. */
function clientLogger(logger: Logger): ClientLogger {
  const debug = (...args: unknown[]): void => logger.debug(`neovim client: ${format(...args)}`);
  const quiet = (): void => {};
  // The client's Logger type is winston's, whose methods return the logger; the client only calls
  // them and reads `level` (anything but 'debug' skips its costly response logging).
  return { level: 'info', info: quiet, debug: quiet, warn: debug, error: debug } as unknown as ClientLogger;
}
