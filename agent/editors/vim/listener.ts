/**
 * The agent's listener for Vim channels (Vim has no `ch_listen`, so each Vim dials the agent).
 *
 * Contract: listens on the user's Vim socket (rendezvous.ts: a unix socket in a 0700 directory,
 * its address in the state directory's `vim-address`) when no live process holds it — else it
 * waits, trying again every VIM_CLAIM_RETRY_MS, and takes the socket over once that process is
 * gone — and, only when asked (`port`), on 127.0.0.1:<port> too. The token is kept in
 * `$XDG_CONFIG_HOME/vimrelay/vim-token` (CSPRNG, 0600, temp file + rename, reused across runs).
 * On every channel the handshake (handshake.ts) comes first, within VIM_HELLO_TIMEOUT_MS: Vim's
 * challenge, the agent's proof, Vim's hello with its proof; anything else, or a wrong proof,
 * closes the channel. An accepted Vim is answered `{ok, name}` (names.ts: unique, kept on
 * reconnect) and added to the registry as a VimEditor; it is removed when its channel closes.
 * Never logs the token, and never sends it. With a `holder` role it follows holder.ts's rule: it
 * says who it is in the holder file while it holds the socket, and as `serve` it neither takes
 * the socket while a `vimrelay agent` runs nor keeps it once one does (its Vims reconnect to the
 * agent), checked every VIM_CLAIM_RETRY_MS.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { loadOrCreateLocalToken } from '../../local/token.ts';
import { silentLogger, type Logger } from '../../log.ts';
import type { EditorRegistry } from '../registry.ts';
import { VimChannel } from './channel.ts';
import { VimEditor } from './editor.ts';
import { answerChallenge, proof, proofMatches, VimChallenge } from './handshake.ts';
import { VimHello } from './hello.ts';
import { agentToYieldTo, describeHolder, holderFile, readHolder, removeHolder, writeHolder, type VimHolderRole } from './holder.ts';
import { VimNames } from './names.ts';
import { claimVimSocket, vimFiles, type ClaimedSocket } from './rendezvous.ts';

export { vimFiles } from './rendezvous.ts';

/** How long a new channel has for the whole handshake. */
export const VIM_HELLO_TIMEOUT_MS = 5_000;

/** How often a listener whose socket another process holds tries to take it over (ms). */
export const VIM_CLAIM_RETRY_MS = 2_000;

export interface VimListenerOptions {
  /** Where accepted Vims are added. */
  registry: EditorRegistry;
  /** The environment the XDG paths are taken from. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Also listen on this TCP port of 127.0.0.1 (0: any free one), for a Vim with g:vimrelay_port. Default: no TCP. */
  port?: number;
  /** What this process is, for holder.ts's rule and the holder file; `relay` for an agent. Default: neither (no rule, no file). */
  holder?: { role: VimHolderRole; relay?: string };
  logger?: Logger;
}

/** A running listener; see the module header. Create it with `VimListener.start`. */
export class VimListener {
  /** The TCP port it listens on, when asked to. */
  readonly port: number | null;
  readonly #tcp: Server | null;
  readonly #sockets = new Set<Socket>();
  readonly #editors = new Map<string, VimEditor>();
  readonly #names = new VimNames();
  readonly #token: string;
  readonly #registry: EditorRegistry;
  readonly #logger: Logger;
  readonly #env: NodeJS.ProcessEnv;
  #claimed: ClaimedSocket | null = null;
  /** What was last logged of who serves Vims instead of this process, to log each change once. */
  #toldOf: string | null = null;
  readonly #holder: { role: VimHolderRole; relay?: string } | undefined;
  #retry: NodeJS.Timeout | undefined;
  #stopped = false;

  private constructor(opts: { tcp: Server | null; port: number | null; token: string; registry: EditorRegistry; logger: Logger; env: NodeJS.ProcessEnv; holder: { role: VimHolderRole; relay?: string } | undefined }) {
    this.#holder = opts.holder;
    this.#tcp = opts.tcp;
    this.port = opts.port;
    this.#token = opts.token;
    this.#registry = opts.registry;
    this.#logger = opts.logger;
    this.#env = opts.env;
  }

  /**
   * Makes the token (if new), claims the Vim socket (or waits for it), listens on TCP when asked,
   * and accepts Vims until `stop`. Rejects when the socket's directory is not the user's alone, or
   * the TCP port cannot be had.
   */
  static async start({ registry, env = process.env, port, logger = silentLogger, holder }: VimListenerOptions): Promise<VimListener> {
    const token = loadOrCreateLocalToken(vimFiles(env).token);
    let tcp: Server | null = null;
    let tcpPort: number | null = null;
    if (port !== undefined) {
      tcp = createServer();
      const server = tcp;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('the Vim listener has no TCP address');
      tcpPort = address.port;
    }
    const listener = new VimListener({ tcp, port: tcpPort, token, registry, logger, env, holder });
    if (tcp && tcpPort !== null) {
      const address = `127.0.0.1:${tcpPort}`;
      tcp.on('connection', (socket) => listener.#accept(socket, address));
      logger.info('listening for Vim on TCP', { port: tcpPort });
    }
    try {
      await listener.#claim();
    } catch (error) {
      await listener.stop();
      throw error;
    }
    return listener;
  }

  /** The unix socket's address (`unix:<path>`) while this listener holds it, else null. */
  get address(): string | null {
    return this.#claimed?.address ?? null;
  }

  /** Stops listening (giving the socket up) and closes every Vim channel. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retry);
    const tcpClosed = this.#tcp ? new Promise<void>((resolve) => this.#tcp?.close(() => resolve())) : Promise.resolve();
    await Promise.all([tcpClosed, this.#release()]);
  }

  /** Gives the unix socket up (and the holder file) and closes every Vim channel on it. */
  async #release(): Promise<void> {
    const claimed = this.#claimed;
    this.#claimed = null;
    for (const socket of this.#sockets) socket.destroy();
    await Promise.all([...this.#editors.values()].map((e) => e.close()));
    await claimed?.release();
    // Only once the socket is free: while it is held, the holder file names who holds it, and a
    // process that finds it taken says whom it waits for (removeHolder leaves a newer holder's).
    if (claimed && this.#holder) removeHolder(holderFile(this.#env), process.pid);
  }

  /** Tries again in VIM_CLAIM_RETRY_MS: to claim the socket, or (holding it, as serve) whether to yield it. */
  #later(): void {
    this.#retry = setTimeout(() => {
      const next = this.#claimed ? this.#yieldIfAsked() : this.#claim();
      next.catch((error: unknown) => this.#logger.error('cannot listen for Vim', { error: String(error) }));
    }, VIM_CLAIM_RETRY_MS);
    this.#retry.unref();
  }

  /** As serve, holding the socket: gives it up once a `vimrelay agent` runs (holder.ts), else looks again later. */
  async #yieldIfAsked(): Promise<void> {
    const agent = this.#holder?.role === 'serve' ? agentToYieldTo(this.#env) : undefined;
    if (!agent) return this.#later();
    this.#logger.info('handing Vims to the agent of a paired relay: serve yields the Vim socket to it', { agent_pid: agent.pid, relay: agent.relay });
    await this.#release();
    await this.#claim();
  }

  /** Logs once per change who serves Vims instead of this process, and why. */
  #tell(what: string, fields: Record<string, unknown>): void {
    const key = JSON.stringify([what, fields]);
    if (this.#toldOf === key) return;
    this.#toldOf = key;
    this.#logger.info(what, fields);
  }

  /** Claims the Vim socket, or waits for the process that holds it to go (a retry timer). */
  async #claim(): Promise<void> {
    if (this.#stopped) return;
    const agent = this.#holder?.role === 'serve' ? agentToYieldTo(this.#env) : undefined;
    if (agent) {
      this.#tell('vimrelay agent serves Vims, not this serve: serve yields the Vim socket to a running agent', { agent_pid: agent.pid, relay: agent.relay });
      return this.#later();
    }
    // Who held the socket before the probe: a connect the kernel queued can report the socket
    // live after its holder has yielded it and removed the holder file, so the file read after
    // the probe may name nobody (the socket is then taken on the next try).
    const before = readHolder(holderFile(this.#env));
    const claim = await claimVimSocket(vimFiles(this.#env));
    if (this.#stopped) {
      if ('claimed' in claim) await claim.claimed.release();
      return;
    }
    if ('claimed' in claim) {
      this.#claimed = claim.claimed;
      const address = claim.claimed.address;
      claim.claimed.server.on('connection', (socket) => this.#accept(socket, address));
      this.#toldOf = null;
      if (this.#holder) writeHolder(holderFile(this.#env), { pid: process.pid, role: this.#holder.role, relay: this.#holder.relay ?? null });
      this.#logger.info('listening for Vim', { address });
      // As serve: asked again and again whether an agent has started since.
      if (this.#holder?.role === 'serve') this.#later();
      return;
    }
    const holder = readHolder(holderFile(this.#env)) ?? before;
    if (holder === undefined) this.#tell('another vimrelay process serves Vims, not this one; this one takes over when it stops', { address: claim.heldBy });
    else if (holder.role === 'serve' && this.#holder?.role === 'agent') this.#tell(`${describeHolder(holder)} serves Vims, not this agent, until it yields the Vim socket (it does within seconds)`, { holder_pid: holder.pid });
    else this.#tell(`${describeHolder(holder)} serves Vims, not this process; this one takes over when it stops`, { holder_pid: holder.pid, role: holder.role });
    this.#later();
  }

  /** One new channel on the listener at `address`: the handshake, then the Vim is admitted. */
  #accept(socket: Socket, address: string): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
    const channel = new VimChannel(socket);
    const timer = setTimeout(() => socket.destroy(), VIM_HELLO_TIMEOUT_MS);
    socket.once('close', () => clearTimeout(timer));
    const refuse = (why: string): void => {
      this.#logger.warn(`refused a Vim channel: ${why}`);
      socket.destroy();
    };
    let agentNonce: string | null = null;
    let vimNonce = '';
    channel.onMessage((id, payload) => {
      if (agentNonce === null) {
        const challenge = VimChallenge.safeParse(payload);
        if (!challenge.success) return refuse('its first message is no challenge (a plugin older than the agent?)');
        const answer = answerChallenge(this.#token, address, challenge.data);
        agentNonce = answer.nonce;
        vimNonce = challenge.data.nonce;
        channel.send(id, answer);
        return;
      }
      clearTimeout(timer);
      const hello = VimHello.safeParse(payload);
      if (!hello.success) return refuse('no hello after the challenge');
      if (!proofMatches(hello.data.proof, proof(this.#token, 'vimrelay-vim', address, agentNonce, vimNonce))) return refuse('its proof does not match the token');
      this.#admit(channel, id, hello.data);
    });
  }

  #admit(channel: VimChannel, id: number, hello: VimHello): void {
    const previous = this.#editors.get(hello.instance);
    const name = this.#names.claim(hello.instance, hello.name, hello.previous || undefined);
    const editor = new VimEditor(channel, hello, name, this.#logger);
    this.#editors.set(hello.instance, editor);
    if (previous) void previous.close();
    channel.send(id, { ok: true, name });
    this.#registry.add(editor);
    editor.onInfoChange(() => this.#registry.changed());
    this.#logger.info('Vim connected', { editor: editor.id, name });
    // A Vim may connect while it waits for its user (its vimrc connects, and the swap-file
    // question comes next): listed so at once.
    editor.checkWaiting(AbortSignal.timeout(VIM_HELLO_TIMEOUT_MS)).catch((error: unknown) => this.#logger.debug('cannot ask a Vim whether it waits', { editor: editor.id, error: String(error) }));
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
