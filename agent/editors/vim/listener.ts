/**
 * The agent's listener for Vim channels (Vim has no `ch_listen`, so each Vim dials the agent).
 *
 * Contract: listens on 127.0.0.1 only, at `port` (0: any free port), and writes the actual port to
 * `$XDG_STATE_HOME/vimrelay/vim-port`; the token is kept in `$XDG_CONFIG_HOME/vimrelay/vim-token`
 * (CSPRNG, 0600, temp file + rename, reused across runs). The first message on a channel must be
 * a hello (hello.ts) with that token (compared in constant time) within VIM_HELLO_TIMEOUT_MS, else
 * the channel is closed. An accepted Vim is answered `{ok, name}` (names.ts: unique, kept on
 * reconnect) and added to the registry as a VimEditor; it is removed when its channel closes.
 * Never logs the token.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { paths } from '../../config/paths.ts';
import { writePrivateFile } from '../../config/private-file.ts';
import { loadOrCreateLocalToken, tokenMatches } from '../../local/token.ts';
import { silentLogger, type Logger } from '../../log.ts';
import type { EditorRegistry } from '../registry.ts';
import { VimChannel } from './channel.ts';
import { VimEditor } from './editor.ts';
import { VimHello } from './hello.ts';
import { VimNames } from './names.ts';

/** How long a new channel has to say hello. */
export const VIM_HELLO_TIMEOUT_MS = 5_000;

export interface VimListenerOptions {
  /** Where accepted Vims are added. */
  registry: EditorRegistry;
  /** The environment the XDG paths are taken from. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** TCP port on 127.0.0.1. Default 0: any free port (the one chosen is written to the port file). */
  port?: number;
  logger?: Logger;
}

/** The token file and port file for the environment `env`. */
export function vimFiles(env: NodeJS.ProcessEnv = process.env): { token: string; port: string } {
  const p = paths(env);
  return { token: join(p.configDir, 'vim-token'), port: join(p.stateDir, 'vim-port') };
}

/** A running listener; see the module header. Create it with `VimListener.start`. */
export class VimListener {
  /** The port it listens on. */
  readonly port: number;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #editors = new Map<string, VimEditor>();
  readonly #names = new VimNames();
  readonly #token: string;
  readonly #registry: EditorRegistry;
  readonly #logger: Logger;

  private constructor(server: Server, port: number, token: string, registry: EditorRegistry, logger: Logger) {
    this.#server = server;
    this.port = port;
    this.#token = token;
    this.#registry = registry;
    this.#logger = logger;
  }

  /** Listens, writes the token (if new) and port files, and accepts Vims until `stop`. */
  static async start({ registry, env = process.env, port = 0, logger = silentLogger }: VimListenerOptions): Promise<VimListener> {
    const files = vimFiles(env);
    const token = loadOrCreateLocalToken(files.token);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('the Vim listener has no TCP address');
    const listener = new VimListener(server, address.port, token, registry, logger);
    server.on('connection', (socket) => listener.#accept(socket));
    writePrivateFile(files.port, `${address.port}\n`);
    logger.info('listening for Vim', { port: address.port });
    return listener;
  }

  /** Stops listening and closes every Vim channel. */
  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const socket of this.#sockets) socket.destroy();
    await Promise.all([...this.#editors.values()].map((e) => e.close()));
    await closed;
  }

  #accept(socket: Socket): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
    const channel = new VimChannel(socket);
    const timer = setTimeout(() => socket.destroy(), VIM_HELLO_TIMEOUT_MS);
    socket.once('close', () => clearTimeout(timer));
    channel.onMessage((id, payload) => {
      clearTimeout(timer);
      const hello = VimHello.safeParse(payload);
      if (!hello.success || !tokenMatches(hello.data.token, this.#token)) {
        this.#logger.warn('refused a Vim channel: no hello with the right token');
        socket.destroy();
        return;
      }
      this.#admit(channel, id, hello.data);
    });
  }

  #admit(channel: VimChannel, id: number, hello: VimHello): void {
    const previous = this.#editors.get(hello.instance);
    const name = this.#names.claim(hello.instance, hello.name);
    const editor = new VimEditor(channel, hello, name, this.#logger);
    this.#editors.set(hello.instance, editor);
    if (previous) void previous.close();
    channel.send(id, { ok: true, name });
    this.#registry.add(editor);
    editor.onInfoChange(() => this.#registry.changed());
    this.#logger.info('Vim connected', { editor: editor.id, name });
    void editor.exited.then(() => {
      if (this.#editors.get(hello.instance) === editor) {
        this.#editors.delete(hello.instance);
        this.#names.release(hello.instance, name);
      }
      this.#registry.remove(editor);
      this.#logger.info('Vim disconnected', { editor: editor.id });
    });
  }
}
