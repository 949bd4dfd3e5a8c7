/**
 * The agent's editor source: every Neovim found on this machine (nvim/watcher.ts), plus those
 * attached on request (connect_editor), and, when enabled, every Vim that connects to the Vim
 * listener (vim/listener.ts), as one EditorSource for the relay link and the local server.
 * Stopping it detaches every editor.
 */
import { readAgentConfig } from '../config/agent-config.ts';
import { paths } from '../config/paths.ts';
import { silentLogger } from '../log.ts';
import type { EditorSource } from './editor.ts';
import { NvimWatcher, type NvimWatcherOptions } from './nvim/watcher.ts';
import { EditorRegistry } from './registry.ts';
import { VimListener } from './vim/listener.ts';

/**
 * Options of the Neovim watcher (dirs, sockets, tcpEditors, env, intervalMs, maxEntries,
 * probeTimeoutMs, logger), and `vim`: whether to listen for Vims (default false: on the user's Vim
 * socket, vim/rendezvous.ts), and `{ port }` to listen on that TCP port of 127.0.0.1 too. `tcpEditors` defaults to the
 * `tcp_editors` of the config file (agent-config.ts) of `env`.
 */
export type EditorSourceOptions = NvimWatcherOptions & { vim?: boolean | { port?: number } };

/**
 * Starts discovering editors at once; `list()` fills as they are attached, `onChange` tells when.
 * Throws, before starting anything, when the config file is invalid.
 */
export function createEditorSource(options: EditorSourceOptions = {}): EditorSource {
  const tcpEditors = options.tcpEditors ?? readAgentConfig(paths(options.env).config).tcpEditors;
  const registry = new EditorRegistry(options.logger);
  const watcher = new NvimWatcher(registry, { ...options, tcpEditors });
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
