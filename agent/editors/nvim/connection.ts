/**
 * One msgpack-RPC connection to a Neovim (Neovim's `:help msgpack-rpc`, after the msgpack-RPC
 * spec: a request is `[0, msgid, method, params]`, a response `[1, msgid, error, result]`, a
 * notification `[2, method, params]`), framed here over @msgpack/msgpack's stream decoder.
 *
 * Contract: `NvimConnection.open` first checks that the address speaks msgpack-RPC (a throwaway
 * connection answering `nvim_get_api_info`), so that no connection is handed to a listener that
 * is not a Neovim. Every request honours an AbortSignal and rejects with `EditorGone` as soon as
 * the socket closes: a request that makes Neovim exit never gets an answer, and nothing here waits
 * forever. Nothing Neovim sends can throw out of here: what is not msgpack-RPC ends the connection
 * (its requests then reject with `EditorGone`), an answer to no pending request is dropped, and a
 * request Neovim makes of the agent (`rpcrequest()`, which blocks Neovim until it is answered) is
 * answered at once with an error, since the agent serves none. Nothing here writes to stdout.
 */
import { createConnection, type Socket } from 'node:net';
import { decode, Decoder, Encoder, ExtensionCodec } from '@msgpack/msgpack';
import { silentLogger, type Logger } from '../../log.ts';
import { EditorError, EditorGone } from '../call.ts';
import { Waiting, type Rejectable } from '../waiting.ts';
import { parseAddress, type NvimAddress } from './address.ts';


/** The address answered, but not as a Neovim would. */
export class NotNeovim extends Error {
  constructor(address: string) {
    super(`${address} does not speak msgpack-RPC.`);
    this.name = 'NotNeovim';
  }
}

/** `[0, 0, "nvim_get_api_info", []]`: a msgpack-RPC request with id 0. */
const API_INFO_REQUEST = Buffer.concat([Buffer.from([0x94, 0x00, 0x00, 0xb1]), Buffer.from('nvim_get_api_info'), Buffer.from([0x90])]);
/** `[1, 0, nil, ...`: the start of a successful response to request 0. */
const RESPONSE_PREFIX = Buffer.from([0x94, 0x01, 0x00, 0xc0]);

/** The message types of msgpack-RPC. */
const REQUEST = 0;
const RESPONSE = 1;
const NOTIFICATION = 2;

/** Neovim's handles (Buffer, Window, Tabpage: ext types 0, 1, 2, `:help rpc-types`) decode to their numbers. */
const HANDLES = new ExtensionCodec();
for (const type of [0, 1, 2]) HANDLES.register({ type, encode: () => null, decode: (data) => decode(data) });

/** The error a request Neovim makes of the agent gets: `[type, message]`, as Neovim's own errors are. */
const NO_REQUESTS: [number, string] = [0, 'vimrelay serves no requests on this channel'];

/** How to open a connection. */
export interface OpenOptions {
  /** Aborts connecting (not the connection once open). */
  signal: AbortSignal;
  logger?: Logger;
}

/** A request waiting for its response. */
interface Pending extends Rejectable {
  method: string;
  resolve(value: unknown): void;
}

/** A live msgpack-RPC connection to one Neovim; see the module header. */
export class NvimConnection {
  /** Settles when the socket has closed, for whatever reason. */
  readonly closed: Promise<void>;
  readonly #socket: Socket;
  readonly #logger: Logger;
  readonly #encoder = new Encoder();
  readonly #waiting = new Waiting<Pending>();
  readonly #listeners: ((method: string, args: unknown[]) => void)[] = [];
  #nextId = 1;
  #isClosed = false;

  private constructor(socket: Socket, logger: Logger) {
    this.#socket = socket;
    this.#logger = logger;
    socket.on('error', (error) => logger.debug('neovim socket error', { error: error.message }));
    this.closed = new Promise((resolve) => {
      socket.once('close', () => {
        this.#isClosed = true;
        for (const pending of this.#waiting.drain()) pending.reject(new EditorGone('Neovim'));
        resolve();
      });
    });
    void this.#read();
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
    const id = this.#nextId;
    // msgids are 32-bit unsigned (the spec): they wrap after 2^32 requests, none pending that long.
    this.#nextId = this.#nextId === 0xffff_ffff ? 1 : this.#nextId + 1;
    let frame: Uint8Array;
    try {
      frame = this.#encoder.encode([REQUEST, id, method, args]);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return new Promise((resolve, reject) => {
      this.#waiting.add(id, { method, resolve, reject }, signal);
      this.#socket.write(frame);
    });
  }

  /** Calls `listener` for every notification Neovim sends on this channel. */
  onNotification(listener: (method: string, args: unknown[]) => void): void {
    this.#listeners.push(listener);
  }

  /** Closes the socket; pending requests reject with `EditorGone`. */
  async close(): Promise<void> {
    this.#socket.destroy();
    await this.closed;
  }

  /** Reads messages until the socket ends, or until Neovim sends what is not msgpack-RPC. */
  async #read(): Promise<void> {
    try {
      for await (const message of new Decoder({ extensionCodec: HANDLES, rawStrings: true }).decodeStream(this.#socket)) this.#receive(asText(message));
    } catch (error) {
      if (!this.#isClosed) this.#logger.debug('neovim connection closed: not msgpack-RPC, or the socket failed', { error: String(error) });
    }
    this.#socket.destroy();
  }

  /** One message from Neovim; throws on what is not a msgpack-RPC message. */
  #receive(message: unknown): void {
    if (!Array.isArray(message)) throw new TypeError('a message that is not an array');
    const [type] = message;
    if (type === RESPONSE && message.length === 4) {
      const [, id, error, result] = message as [number, unknown, unknown, unknown];
      const pending = typeof id === 'number' ? this.#waiting.settle(id) : undefined;
      if (pending === undefined) return; // Abandoned by its caller (an abort).
      if (error === null) pending.resolve(result);
      else pending.reject(new EditorError(`${pending.method}: ${errorText(error)}`));
    } else if (type === NOTIFICATION && message.length === 3) {
      const [, method, args] = message as [number, unknown, unknown];
      if (typeof method !== 'string' || !Array.isArray(args)) throw new TypeError('a malformed notification');
      for (const listener of this.#listeners) {
        try {
          listener(method, args);
        } catch (error) {
          this.#logger.warn('a neovim notification handler failed', { method, error: String(error) });
        }
      }
    } else if (type === REQUEST && message.length === 4) {
      this.#socket.write(this.#encoder.encode([RESPONSE, message[1], NO_REQUESTS, null]));
    } else {
      throw new TypeError(`a message of unknown type ${String(type)}`);
    }
  }
}

/** Not fatal: a byte that is not UTF-8 decodes to U+FFFD (WHATWG Encoding), as Vim's json_encode() writes it. */
const UTF8 = new TextDecoder();

/**
 * `value` with its msgpack strings as text. The decoder hands them over as bytes (`rawStrings`) for
 * TextDecoder here: @msgpack/msgpack decodes a string under 200 bytes with a decoder of its own,
 * which takes the bytes after one that is not UTF-8 into its character (a buffer read with
 * ++bad=keep: the JSON of a result lost a quote and a comma). Map keys stay the decoder's. Neovim's
 * Blobs (msgpack bin) become text too; no request of the agent's asks for one.
 */
function asText(value: unknown): unknown {
  if (value instanceof Uint8Array) return UTF8.decode(value);
  if (Array.isArray(value)) return value.map(asText);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asText(v)]));
  return value;
}

/** The text of a msgpack-RPC error: Neovim's are `[type, message]`. */
function errorText(error: unknown): string {
  if (Array.isArray(error) && typeof error[1] === 'string') return error[1];
  return typeof error === 'string' ? error : JSON.stringify(error);
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
