/**
 * Keeps a registry in step with the Neovims on this machine. Every `intervalMs` it scans for
 * sockets (discovery.ts) plus the explicit addresses, probes each new one (in the background, at
 * most MAX_PROBES at once, each bounded by `probeTimeoutMs`), attaches those that answer, keeps
 * one editor per pid (one Neovim may listen on several sockets), backs off from addresses that
 * fail, refreshes attached editors' info, and drops editors as soon as they exit.
 */
import { lstat } from 'node:fs/promises';
import { silentLogger, type Logger } from '../../log.ts';
import type { EditorRegistry } from '../registry.ts';
import { ProbeBackoff } from './backoff.ts';
import { defaultSocketAddresses, defaultSocketDirs, DEFAULT_MAX_ENTRIES, findSockets } from './discovery.ts';
import { NvimEditor } from './editor.ts';

/** Probes running at once; the rest wait for a later tick. */
const MAX_PROBES = 8;

/** Where to look, how often, and how long to wait; every field has a default. */
export interface NvimWatcherOptions {
  /** Roots to scan for sockets. Default: defaultSocketDirs(env). */
  dirs?: readonly string[];
  /** Addresses (socket paths or host:port) to attach besides the scanned ones. Default: defaultSocketAddresses(env). */
  sockets?: readonly string[];
  /** The environment the defaults come from. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Time between scans (ms). Default 1000, so a new Neovim shows up within about two seconds. */
  intervalMs?: number;
  /** Directory entries one scan reads at most. Default DEFAULT_MAX_ENTRIES. */
  maxEntries?: number;
  /** Deadline of one probe-and-attach, and of one info refresh (ms). Default 2000. */
  probeTimeoutMs?: number;
  logger?: Logger;
}

/** The discovery loop for one registry; see the module header. */
export class NvimWatcher {
  readonly #registry: EditorRegistry;
  readonly #dirs: readonly string[];
  readonly #sockets: readonly string[];
  readonly #intervalMs: number;
  readonly #maxEntries: number;
  readonly #probeTimeoutMs: number;
  readonly #logger: Logger;
  readonly #backoff = new ProbeBackoff();
  readonly #stop = new AbortController();
  /** Address -> the editor reached through it (an editor may have several). */
  readonly #owners = new Map<string, NvimEditor>();
  readonly #probes = new Map<string, Promise<void>>();
  readonly #refreshing = new Set<NvimEditor>();
  #tick: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;

  /** Starts watching at once: the first scan runs now. */
  constructor(registry: EditorRegistry, options: NvimWatcherOptions = {}) {
    const env = options.env ?? process.env;
    this.#registry = registry;
    this.#dirs = options.dirs ?? defaultSocketDirs(env);
    this.#sockets = options.sockets ?? defaultSocketAddresses(env);
    this.#intervalMs = options.intervalMs ?? 1_000;
    this.#maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.#probeTimeoutMs = options.probeTimeoutMs ?? 2_000;
    this.#logger = options.logger ?? silentLogger;
    this.#run();
  }

  /** Stops scanning, waits for running probes, and detaches every editor it attached. */
  async stop(): Promise<void> {
    this.#stop.abort();
    clearTimeout(this.#timer);
    await this.#tick;
    await Promise.all(this.#probes.values());
    await Promise.all([...new Set(this.#owners.values())].map((e) => e.close()));
  }

  #run(): void {
    this.#tick = this.#scan()
      .catch((error: unknown) => this.#logger.warn('neovim scan failed', { error: String(error) }))
      .finally(() => {
        if (!this.#stop.signal.aborted) this.#timer = setTimeout(() => this.#run(), this.#intervalMs);
      });
  }

  async #scan(): Promise<void> {
    const addresses = [...new Set([...this.#sockets, ...(await findSockets(this.#dirs, { maxEntries: this.#maxEntries }))])];
    this.#backoff.retain(addresses);
    for (const address of addresses) {
      if (this.#stop.signal.aborted || this.#probes.size >= MAX_PROBES) break;
      if (this.#owners.has(address) || this.#probes.has(address)) continue;
      const identity = await identityOf(address);
      if (!this.#backoff.due(address, identity, Date.now())) continue;
      const probe = this.#probe(address, identity).finally(() => this.#probes.delete(address));
      this.#probes.set(address, probe);
    }
    for (const editor of new Set(this.#owners.values())) this.#refresh(editor);
  }

  async #probe(address: string, identity: string): Promise<void> {
    const signal = AbortSignal.any([this.#stop.signal, AbortSignal.timeout(this.#probeTimeoutMs)]);
    let editor: NvimEditor;
    try {
      editor = await NvimEditor.attach(address, { signal, logger: this.#logger });
    } catch (error) {
      this.#backoff.failed(address, identity, Date.now());
      this.#logger.debug('not a usable neovim', { address, error: error instanceof Error ? error.message : String(error) });
      return;
    }
    this.#backoff.forget(address);
    const twin = [...this.#owners.values()].find((e) => e.pid === editor.pid && !e.isClosed);
    if (this.#stop.signal.aborted || twin) {
      await editor.close();
      if (twin) this.#owners.set(address, twin);
      return;
    }
    this.#owners.set(address, editor);
    this.#registry.add(editor);
    editor.onInfoChange(() => this.#registry.changed());
    void editor.exited.then(() => this.#drop(editor));
  }

  #drop(editor: NvimEditor): void {
    for (const [address, owner] of this.#owners) if (owner === editor) this.#owners.delete(address);
    this.#registry.remove(editor);
  }

  /** Re-reads one editor's info in the background, unless a refresh of it is still running. */
  #refresh(editor: NvimEditor): void {
    if (this.#refreshing.has(editor) || editor.isClosed) return;
    this.#refreshing.add(editor);
    editor
      .refresh(AbortSignal.any([this.#stop.signal, AbortSignal.timeout(this.#probeTimeoutMs)]))
      .catch((error: unknown) => this.#logger.debug('neovim info refresh failed', { editor: editor.id, error: String(error) }))
      .finally(() => this.#refreshing.delete(editor));
  }
}

/** Tells a socket file from a later one at the same path; '' for TCP or a missing file. */
async function identityOf(address: string): Promise<string> {
  try {
    const s = await lstat(address);
    return `${s.ino}:${s.mtimeMs}`;
  } catch {
    return '';
  }
}
