/**
 * The agent's editor source: every Neovim found on this machine (nvim/watcher.ts), plus those
 * attached on request (connect_editor), and, when enabled, every Vim that connects to the Vim
 * listener (vim/listener.ts), as one EditorSource for the relay link and the local server.
 * Stopping it detaches every editor.
 */
import { DEFAULT_AGENT_CONFIG, readAgentConfig } from '../config/agent-config.ts';
import { paths } from '../config/paths.ts';
import { silentLogger } from '../log.ts';
import type { Editor, EditorSource } from './editor.ts';
import { NotAttachable, NvimWatcher, type NvimWatcherOptions } from './nvim/watcher.ts';
import { EditorRegistry } from './registry.ts';
import { VimListener, type VimListenerOptions } from './vim/listener.ts';

/**
 * Options of the Neovim watcher (dirs, sockets, tcpEditors, skipDirs, env, intervalMs, maxEntries,
 * probeTimeoutMs, logger), and `vim`: whether to listen for Vims (default false: on the user's Vim
 * socket, vim/rendezvous.ts), and `{ port }` to listen on that TCP port of 127.0.0.1 too, `{ holder }` to follow vim/holder.ts's rule;
 * `namedOnly`: list and reach only the editors the user named. Without `tcpEditors`, the config
 * file (agent-config.ts) of `env` gives it, and the defaults of `dirs`, `skipDirs` and `namedOnly`;
 * with it, the file is not read.
 */
export type EditorSourceOptions = NvimWatcherOptions & { vim?: boolean | { port?: number; holder?: VimListenerOptions['holder'] }; namedOnly?: boolean };

/**
 * Starts discovering editors at once; `list()` fills as they are attached, `onChange` tells when.
 * Throws, before starting anything, when the config file is invalid.
 */
export function createEditorSource(options: EditorSourceOptions = {}): EditorSource {
  const config = options.tcpEditors === undefined ? readAgentConfig(paths(options.env).config) : DEFAULT_AGENT_CONFIG;
  const namedOnly = options.namedOnly ?? config.namedOnly;
  const admit = namedOnly ? (editor: Editor) => editor.chosenName() !== null : undefined;
  const registry = new EditorRegistry(options.logger, admit);
  const watcher = new NvimWatcher(registry, {
    ...options,
    tcpEditors: options.tcpEditors ?? config.tcpEditors,
    skipDirs: options.skipDirs ?? config.skipDirs,
    ...(options.dirs === undefined && config.socketDirs !== null ? { dirs: config.socketDirs } : {}),
  });
  const logger = options.logger ?? silentLogger;
  const vim = options.vim
    ? VimListener.start({
        registry,
        logger,
        ...(options.env ? { env: options.env } : {}),
        ...(typeof options.vim === 'object' && options.vim.port !== undefined ? { port: options.vim.port } : {}),
        ...(typeof options.vim === 'object' && options.vim.holder !== undefined ? { holder: options.vim.holder } : {}),
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
    attach: async (address, signal) => {
      const attached = await watcher.attach(address, signal);
      // An editor the user did not name stays out of reach (named_only), asked for or not.
      if (admit && !admit(attached.editor)) throw new NotAttachable(address);
      return attached;
    },
    stop: async () => {
      await Promise.all([watcher.stop(), vim?.then((listener) => listener?.stop())]);
    },
  };
}
