/**
 * The agent's editor source: every Neovim found on this machine (nvim/watcher.ts), plus those
 * attached on request (connect_editor), as one EditorSource for the relay link and the local
 * server. Stopping it detaches every editor.
 */
import type { EditorSource } from './editor.ts';
import { NvimWatcher, type NvimWatcherOptions } from './nvim/watcher.ts';
import { EditorRegistry } from './registry.ts';

/** Options of the Neovim watcher (dirs, sockets, env, intervalMs, maxEntries, probeTimeoutMs, logger). */
export type EditorSourceOptions = NvimWatcherOptions;

/** Starts discovering editors at once; `list()` fills as they are attached, `onChange` tells when. */
export function createEditorSource(options: EditorSourceOptions = {}): EditorSource {
  const registry = new EditorRegistry(options.logger);
  const watcher = new NvimWatcher(registry, options);
  return {
    list: () => registry.list(),
    get: (id) => registry.get(id),
    onChange: (listener) => registry.onChange(listener),
    candidates: () => watcher.candidates(),
    attach: (address, signal) => watcher.attach(address, signal),
    stop: () => watcher.stop(),
  };
}
