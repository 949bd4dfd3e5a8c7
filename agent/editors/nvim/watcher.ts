/**
 * Keeps a registry in step with the Neovims on this machine. It scans for sockets (discovery.ts)
 * plus the explicit addresses when a watched directory changes (dir-watch.ts: the scan roots and
 * the `nvim` directories found, so a new Neovim shows up at once and an idle agent does nothing),
 * when a failed address is due for another try, and every `intervalMs` in any case (to catch what
 * no watch sees; every `pollMs` when a directory could not be watched). Only those periodic scans
 * read the directories off Neovim's `nvim` paths (discovery.ts `deep`), where no watch looks
 * anyway: the others keep the sockets the last periodic scan found there, and cost a few
 * directory reads in a busy /tmp instead of thousands of entries. Off those paths, a scan reads
 * again only the directories that changed since a scan last read them (discovery.ts
 * `ScanCache`); the others cost it a stat each. It probes each new address
 * (in the background, at most MAX_PROBES at once, each bounded by `probeTimeoutMs`), attaches those
 * that answer, keeps one editor per pid (one Neovim may listen on several sockets), backs off from
 * addresses that fail, refreshes attached editors' info on the periodic scans (the editors
 * announce most changes themselves), and drops editors as soon as they exit. A Neovim found
 * waiting for its user (the swap-file question as it starts) is attached and listed at once, and
 * installed once it can be asked (nvim/editor.ts).
 *
 * On request (`attach`, for connect_editor) it attaches an address at once, backoff or not, and
 * scans that address from then on, until the editor attached through it exits. `candidates`
 * lists every address it knows with what became of it. `ready` says when the first scan is over,
 * its probes included, for a server that should not answer before it knows the editors.
 *
 * Only the user's own Neovims are ever attached, found or asked for (ARCHITECTURE.md "Trust
 * boundaries"): a unix socket owned by the user on a path only the user can change
 * (trusted-path.ts), or a TCP address the user listed in `tcp_editors` (agent-config.ts). Any
 * other address is never connected to, never listed as a candidate, and logged once, at debug
 * level; `attach` rejects it with NotAttachable, whose message says nothing of why.
 */
import { lstat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { loopbackAddress } from '../../config/agent-config.ts';
import { checkTrusted, type TrustVerdict } from '../../config/trusted-path.ts';
import { silentLogger, type Logger } from '../../log.ts';
import { EditorBlocked, WAIT_POLL_MS } from '../blocked.ts';
import type { Attached, EditorCandidate } from '../editor.ts';
import type { EditorRegistry } from '../registry.ts';
import { parseAddress, socketPid } from './address.ts';
import { ProbeBackoff } from './backoff.ts';
import { DirWatch } from './dir-watch.ts';
import { defaultSocketAddresses, defaultSocketDirs, DEFAULT_MAX_ENTRIES, scanSockets, type ScanCache } from './discovery.ts';
import { NvimEditor } from './editor.ts';

/** Probes running at once; the rest wait for a later scan. */
const MAX_PROBES = 8;

/** How long after a change in a watched directory the scan runs (ms): one scan for a burst of changes. */
const SETTLE_MS = 50;

/** Where to look, how often, and how long to wait; every field has a default. */
export interface NvimWatcherOptions {
  /** Roots to scan for sockets. Default: defaultSocketDirs(env). */
  dirs?: readonly string[];
  /** Addresses (socket paths or host:port) to attach besides the scanned ones. Default: defaultSocketAddresses(env). */
  sockets?: readonly string[];
  /** The TCP addresses the user configured (agent-config.ts, canonical): the only ones ever attached, and attached like `sockets`. Default none. */
  tcpEditors?: readonly string[];
  /** Directories under which no socket is attached, found or requested (config.json `discovery.skip`). Default none. */
  skipDirs?: readonly string[];
  /** The environment the defaults come from. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Longest time between two full scans and info refreshes (ms), whatever the watches say. Default 30,000. */
  intervalMs?: number;
  /** Time between scans while some directory cannot be watched (ms). Default 1000. */
  pollMs?: number;
  /** Directory entries one scan reads at most. Default DEFAULT_MAX_ENTRIES. */
  maxEntries?: number;
  /** Deadline of one probe-and-attach, and of one info refresh (ms). Default 2000. */
  probeTimeoutMs?: number;
  logger?: Logger;
}

/** An address the agent may not attach; the message is the same whatever the reason (the debug log has it). */
export class NotAttachable extends Error {
  constructor(address: string) {
    super(`${address} is not a Neovim this agent may attach.`);
    this.name = 'NotAttachable';
  }
}

/** The discovery loop for one registry; see the module header. */
export class NvimWatcher {
  readonly #registry: EditorRegistry;
  readonly #dirs: readonly string[];
  readonly #sockets: readonly string[];
  readonly #tcpEditors: ReadonlySet<string>;
  readonly #skipDirs: readonly string[];
  readonly #intervalMs: number;
  readonly #pollMs: number;
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
  /** The addresses found or configured at the last scan that the agent may attach. */
  #known: readonly string[] = [];
  /** Addresses refused (and logged) already, among those of the last scan and the requests since. */
  #refused = new Set<string>();
  #tick: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  /** When the timer fires (epoch ms). */
  #timerAt = Infinity;
  /** A scan is running; `#again`: a change came in meanwhile, scan once more after it. */
  #scanning = false;
  #again = false;
  #lastRefresh = 0;
  /** When the last deep scan ran (epoch ms), and the sockets it found. */
  #lastDeep = 0;
  #deepSockets: readonly string[] = [];
  /** The directories scans read, kept so that the next scan reads again only those that changed. */
  readonly #scanCache: ScanCache = new Map();
  readonly #dirWatch: DirWatch;
  /** Settles when the first scan is over and every probe it started has attached or failed. */
  readonly ready: Promise<void>;

  /** Starts watching at once: the first scan runs now. */
  constructor(registry: EditorRegistry, options: NvimWatcherOptions = {}) {
    const env = options.env ?? process.env;
    this.#registry = registry;
    this.#dirs = options.dirs ?? defaultSocketDirs(env);
    this.#tcpEditors = new Set(options.tcpEditors ?? []);
    this.#skipDirs = (options.skipDirs ?? []).map((d) => resolve(d));
    this.#sockets = [...new Set([...(options.sockets ?? defaultSocketAddresses(env)), ...this.#tcpEditors])];
    this.#intervalMs = options.intervalMs ?? 30_000;
    this.#pollMs = Math.min(options.pollMs ?? 1_000, this.#intervalMs);
    this.#maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.#probeTimeoutMs = options.probeTimeoutMs ?? 2_000;
    this.#logger = options.logger ?? silentLogger;
    this.#dirWatch = new DirWatch(() => this.#soon(SETTLE_MS), this.#logger);
    this.#run();
    this.ready = this.#tick.then(async () => void (await Promise.all(this.#probes.values())));
  }

  /** Stops scanning, waits for running probes, and detaches every editor it attached. */
  async stop(): Promise<void> {
    this.#stop.abort();
    clearTimeout(this.#timer);
    this.#dirWatch.close();
    await this.#tick;
    await Promise.all(this.#probes.values());
    await Promise.all([...new Set(this.#owners.values())].map((e) => e.close()));
  }

  /** Scans now, then schedules the next scan: at the next periodic one, or sooner when a failed address is due. */
  #run(): void {
    this.#timerAt = Infinity;
    if (this.#scanning) {
      this.#again = true;
      return;
    }
    this.#scanning = true;
    this.#tick = this.#scan()
      .catch((error: unknown) => this.#logger.warn('neovim scan failed', { error: String(error) }))
      .finally(() => {
        this.#scanning = false;
        if (this.#stop.signal.aborted) return;
        if (this.#again) {
          this.#again = false;
          this.#soon(0);
          return;
        }
        const period = this.#dirWatch.complete ? this.#intervalMs : this.#pollMs;
        const retry = this.#backoff.nextRetry();
        this.#soon(Math.min(period, retry === null ? Infinity : Math.max(0, retry - Date.now())));
      });
  }

  /** Has a scan run within `ms`, unless one is due sooner already. */
  #soon(ms: number): void {
    if (this.#stop.signal.aborted) return;
    const at = Date.now() + ms;
    if (at >= this.#timerAt) return;
    clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#run(), ms);
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

  /** Attaches `address` now; see EditorSource.attach. Rejects with NotAttachable for an address that is not the user's. */
  async attach(address: string, signal: AbortSignal): Promise<Attached> {
    const target = normalize(address);
    if (!(await this.#admissible(target))) throw new NotAttachable(address);
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
    // Deep when periodic, or when polling (no watch tells of changes anywhere then).
    const deep = !this.#dirWatch.complete || Date.now() - this.#lastDeep >= this.#intervalMs;
    const scan = await scanSockets(this.#dirs, { maxEntries: this.#maxEntries, deep, cache: this.#scanCache });
    if (deep) {
      this.#lastDeep = Date.now();
      this.#deepSockets = scan.sockets;
    }
    const { nvimDirs } = scan;
    const found = deep ? scan.sockets : [...new Set([...scan.sockets, ...this.#deepSockets])];
    const newlyWatched = this.#dirWatch.set([...this.#dirs.map((path) => ({ path: resolve(path), nvimNamesOnly: true })), ...nvimDirs.map((path) => ({ path, nvimNamesOnly: false }))]);
    // A socket made in a directory after this scan read it and before its watch began is in no
    // event: read those directories once more.
    if (newlyWatched > 0) this.#again = true;
    const scanned = new Set([...this.#sockets.map(normalize), ...found]);
    const all = [...new Set([...scanned, ...this.#requested])];
    const admitted = await Promise.all(all.map((a) => this.#admissible(a)));
    // A requested address whose editor exited while the checks ran is no longer watched.
    const addresses = all.filter((a, i) => admitted[i] && (scanned.has(a) || this.#requested.has(a)));
    const seen = new Set(all);
    for (const address of this.#refused) if (!seen.has(address)) this.#refused.delete(address);
    // Requested addresses are listed while they are requested (candidates() adds them), not after.
    this.#known = addresses.filter((a) => scanned.has(a));
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
    // The editors announce their changes themselves; the refresh catches what no event says
    // (such as a new g:vimrelay_name), on the periodic scans only.
    if (Date.now() - this.#lastRefresh >= this.#intervalMs) {
      this.#lastRefresh = Date.now();
      for (const editor of new Set(this.#owners.values())) this.#refresh(editor);
    }
  }

  /**
   * Whether `address` (normalized) is the user's own: a trusted socket, or a configured TCP
   * address. A refusal is logged the first time only.
   */
  async #admissible(address: string): Promise<boolean> {
    const verdict = await this.#verdict(address);
    if (verdict.ok) return true;
    if (!this.#refused.has(address)) {
      this.#refused.add(address);
      this.#logger.debug('not attaching an address that is not the user\'s own neovim', { address, reason: verdict.reason });
    }
    return false;
  }

  #verdict(address: string): Promise<TrustVerdict> | TrustVerdict {
    if ('path' in parseAddress(address)) {
      if (this.#skipDirs.some((dir) => isUnder(address, dir))) return { ok: false, reason: 'in a directory config.json skips' };
      return checkTrusted(address, 'socket');
    }
    return this.#tcpEditors.has(address) ? { ok: true, path: address } : { ok: false, reason: 'a TCP address not listed in tcp_editors' };
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
      // A Neovim that waits for its user, whose process the system does not name, is attached as
      // soon as it can be asked: tried again while it waits, cheaply, with no growing wait.
      if (error instanceof EditorBlocked) this.#backoff.later(address, identity, Date.now(), WAIT_POLL_MS * 2);
      else this.#backoff.failed(address, identity, Date.now());
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

/** A socket path made absolute (from the agent's cwd); a loopback host:port in its canonical form, another as given. */
function normalize(address: string): string {
  return 'path' in parseAddress(address) ? resolve(address) : (loopbackAddress(address) ?? address);
}

/** Whether the absolute `path` is `dir` or below it. */
function isUnder(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (rel !== '..' && !rel.startsWith('../') && !isAbsolute(rel));
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
