/**
 * Tells the Neovim watcher when a directory where Neovim sockets appear has changed, so that it
 * scans then instead of every second (an idle agent costs nothing): the scan roots, where only an
 * entry named `nvim…` matters (a Neovim of 0.8+ creates `nvim.<pid>.0` there, 0.7 a `nvimXXXXXX`
 * directory; a busy `/tmp` sees many others), and the `nvim` directories a scan read, where any
 * entry matters (the socket created inside). Uses fs.watch (inotify on Linux, FSEvents on
 * macOS), which is not recursive; what it cannot watch is still found by the watcher's periodic
 * rescan. Watches nothing else and reads nothing.
 */
import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from '../../log.ts';

/** One directory to watch, and whether only `nvim…` entries matter there (a scan root). */
export interface WatchedDir {
  readonly path: string;
  readonly nvimNamesOnly: boolean;
}

/** The directories being watched; `onChange` runs (synchronously) on each relevant change. */
export class DirWatch {
  readonly #onChange: () => void;
  readonly #logger: Logger;
  readonly #watchers = new Map<string, { watcher: FSWatcher; nvimNamesOnly: boolean }>();
  /** Whether every directory asked for could be watched (a missing or unreadable one counts as watched). */
  #complete = true;

  constructor(onChange: () => void, logger: Logger) {
    this.#onChange = onChange;
    this.#logger = logger;
  }

  /** False when some directory could not be watched (no inotify watch left, no permission): the caller then polls. */
  get complete(): boolean {
    return this.#complete;
  }

  /**
   * Watches exactly `dirs`: new ones added, those no longer asked for closed. Returns how many it
   * began to watch: what changed in them between the caller's read and now is in no event, so the
   * caller reads them again.
   */
  set(dirs: readonly WatchedDir[]): number {
    const wanted = new Map(dirs.map((d) => [d.path, d.nvimNamesOnly]));
    for (const [path, entry] of this.#watchers) {
      if (wanted.get(path) === entry.nvimNamesOnly) continue;
      entry.watcher.close();
      this.#watchers.delete(path);
    }
    let complete = true;
    let added = 0;
    for (const [path, nvimNamesOnly] of wanted) {
      if (this.#watchers.has(path)) continue;
      try {
        const watcher = watch(path, { persistent: false }, (_event, name) => {
          // No name (some platforms): anything may have changed.
          if (!nvimNamesOnly || name === null || String(name).startsWith('nvim')) this.#onChange();
        });
        // A directory removed while watched, or a failing watch: stop watching it; the next scan decides again.
        watcher.on('error', () => {
          watcher.close();
          if (this.#watchers.get(path)?.watcher === watcher) this.#watchers.delete(path);
          this.#onChange();
        });
        this.#watchers.set(path, { watcher, nvimNamesOnly });
        added++;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // A root that does not exist (yet) holds no socket, and one the user may not read (another
        // account's) none a scan could find either: polling it would only read it in vain, every
        // second. Anything else (no inotify watch left) leaves a hole that polling fills.
        if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EACCES' && code !== 'EPERM') {
          complete = false;
          this.#logger.debug('cannot watch a directory for neovim sockets; scanning it periodically', { path, error: String(error) });
        }
      }
    }
    this.#complete = complete;
    return added;
  }

  close(): void {
    for (const { watcher } of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }
}
