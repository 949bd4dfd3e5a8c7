/**
 * Keeps a registry in step with the Neovims on this machine. Every `intervalMs` it scans for
 * sockets (discovery.ts) plus the explicit addresses, probes each new one (in the background, at
 * most MAX_PROBES at once, each bounded by `probeTimeoutMs`), attaches those that answer, keeps
 * one editor per pid (one Neovim may listen on several sockets), backs off from addresses that
 * fail, refreshes attached editors' info, and drops editors as soon as they exit.
 *
 * On request (`attach`, for connect_editor) it attaches an address at once, backoff or not, and
 * scans that address from then on, until the editor attached through it exits. `candidates`
 * lists every address it knows with what became of it. `ready` says when the first scan is over,
 * its probes included, for a server that should not answer before it knows the editors.
 */
import { lstat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { silentLogger, type Logger } from '../../log.ts';
import type { Attached, EditorCandidate } from '../editor.ts';
import type { EditorRegistry } from '../registry.ts';
import { parseAddress } from './address.ts';
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
  /** Addresses attached on request: scanned like the explicit ones while their editor lives. */
  readonly #requested = new Set<string>();
  /** Why the last probe of an address failed, for the addresses of the last scan. */
  readonly #errors = new Map<string, string>();
  /** The addresses of the last scan. */
  #known: readonly string[] = [];
  #tick: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  /** Settles when the first scan is over and every probe it started has attached or failed. */
  readonly ready: Promise<void>;

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
    this.ready = this.#tick.then(async () => void (await Promise.all(this.#probes.values())));
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

  /** Every address known, sorted, with its state; see EditorSource.candidates. */
  candidates(): EditorCandidate[] {
    const addresses = [...new Set([...this.#known, ...this.#requested, ...this.#owners.keys()])].sort();
    return addresses.map((address) => {
      const owner = this.#owners.get(address);
      if (owner && !owner.isClosed) return { address, pid: owner.pid, state: 'attached', editor: owner.id, error: null };
      const error = this.#errors.get(address) ?? null;
      return { address, pid: socketPid(address), state: error === null ? 'pending' : 'unreachable', editor: null, error };
    });
  }

  /** Attaches `address` now; see EditorSource.attach. */
  async attach(address: string, signal: AbortSignal): Promise<Attached> {
    const target = normalize(address);
    // A background probe of it may be running: let it finish, then see what it found.
    await this.#probes.get(target);
    const owner = this.#owners.get(target);
    if (owner && !owner.isClosed) return { editor: owner, already: true };
    this.#stop.signal.throwIfAborted();
    const attempt = this.#attach(target, await identityOf(target), AbortSignal.any([signal, this.#stop.signal, AbortSignal.timeout(this.#probeTimeoutMs)]));
    const settled = attempt.then(
      () => undefined,
      () => undefined,
    );
    this.#probes.set(target, settled);
    void settled.finally(() => this.#probes.delete(target));
    const attached = await attempt;
    this.#requested.add(target);
    return attached;
  }

  async #scan(): Promise<void> {
    const found = await findSockets(this.#dirs, { maxEntries: this.#maxEntries });
    const addresses = [...new Set([...this.#sockets, ...this.#requested, ...found])];
    this.#known = addresses;
    this.#backoff.retain(addresses);
    const present = new Set(addresses);
    for (const address of this.#errors.keys()) if (!present.has(address)) this.#errors.delete(address);
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
    await this.#attach(address, identity, signal).catch(() => undefined);
  }

  /**
   * Attaches `address` and registers the editor, or the twin already attached with its pid.
   * Rejects, recording the failure for the backoff and `candidates`, when it cannot.
   */
  async #attach(address: string, identity: string, signal: AbortSignal): Promise<Attached> {
    let editor: NvimEditor;
    try {
      editor = await NvimEditor.attach(address, { signal, logger: this.#logger });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.#backoff.failed(address, identity, Date.now());
      this.#errors.set(address, message);
      this.#logger.debug('not a usable neovim', { address, error: message });
      throw error;
    }
    this.#backoff.forget(address);
    this.#errors.delete(address);
    const twin = [...this.#owners.values()].find((e) => e.pid === editor.pid && !e.isClosed);
    if (this.#stop.signal.aborted || twin) {
      await editor.close();
      if (!twin) throw new Error('The agent is stopping.');
      this.#owners.set(address, twin);
      return { editor: twin, already: true };
    }
    this.#owners.set(address, editor);
    this.#registry.add(editor);
    editor.onInfoChange(() => this.#registry.changed());
    void editor.exited.then(() => this.#drop(editor));
    return { editor, already: false };
  }

  #drop(editor: NvimEditor): void {
    for (const [address, owner] of this.#owners) {
      if (owner !== editor) continue;
      this.#owners.delete(address);
      this.#requested.delete(address);
    }
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

/** A socket path made absolute (from the agent's cwd); host:port as given. */
function normalize(address: string): string {
  return 'path' in parseAddress(address) ? resolve(address) : address;
}

/** The pid in a socket name of Neovim's own layout (`nvim.<pid>.<n>`), or null. */
function socketPid(address: string): number | null {
  const m = /^nvim\.(\d+)\.\d+$/.exec(basename(address));
  const pid = m ? Number(m[1]) : 0;
  return pid > 0 && Number.isSafeInteger(pid) ? pid : null;
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
