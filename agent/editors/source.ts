/**
 * The agent's editor source: every Neovim found on this machine (nvim/watcher.ts), plus those
 * attached on request (connect_editor), and, when enabled, every Vim that connects to the Vim
 * listener (vim/listener.ts), as one EditorSource for the relay link and the local server.
 * Stopping it detaches every editor.
 */
import { silentLogger } from '../log.ts';
import type { EditorSource } from './editor.ts';
import { NvimWatcher, type NvimWatcherOptions } from './nvim/watcher.ts';
import { EditorRegistry } from './registry.ts';
import { VimListener } from './vim/listener.ts';

/**
 * Options of the Neovim watcher (dirs, sockets, env, intervalMs, maxEntries, probeTimeoutMs,
 * logger), and `vim`: whether to listen for Vims (default false), or on which port (default 0: any
 * free port, written to the state directory).
 */
export type EditorSourceOptions = NvimWatcherOptions & { vim?: boolean | { port?: number } };

/** Starts discovering editors at once; `list()` fills as they are attached, `onChange` tells when. */
export function createEditorSource(options: EditorSourceOptions = {}): EditorSource {
  const registry = new EditorRegistry(options.logger);
  const watcher = new NvimWatcher(registry, options);
  const logger = options.logger ?? silentLogger;
  const vim = options.vim
    ? VimListener.start({
        registry,
        logger,
        ...(options.env ? { env: options.env } : {}),
        ...(typeof options.vim === 'object' && options.vim.port !== undefined ? { port: options.vim.port } : {}),
      }).catch((error: unknown) => {
        logger.error('cannot listen for Vim', { error: String(error) });
        return undefined;
      })
    : undefined;
  return {
    ready: Promise.all([watcher.ready, vim]).then(() => undefined),
    list: () => registry.list(),
    get: (id) => registry.get(id),
    onChange: (listener) => registry.onChange(listener),
    candidates: () => watcher.candidates(),
    attach: (address, signal) => watcher.attach(address, signal),
    stop: async () => {
      await Promise.all([watcher.stop(), vim?.then((listener) => listener?.stop())]);
    },
  };
}
