/**
 * `vimrelay serve`: this machine's editors as an MCP server, with no relay. `--stdio` for a client
 * that spawns the command (Claude Code, Claude Desktop, Cursor); `--http` for one that connects to
 * `http://127.0.0.1:<port>/mcp` with the token printed at start (kept under
 * $XDG_CONFIG_HOME/vimrelay/local-token). Same catalog and checks as the relay path; `--tools
 * read+lsp` lists and serves those toolsets only, as the relay's `/mcp/read+lsp` does.
 */
import { hostname } from 'node:os';
import { readAgentConfig } from '../config/agent-config.ts';
import { paths } from '../config/paths.ts';
import { ensurePrivateDir } from '../config/private-file.ts';
import { announceEditors } from '../editors/announce.ts';
import { defaultSocketDirs } from '../editors/nvim/discovery.ts';
import { createEditorSource } from '../editors/source.ts';
import { publishServeStatus } from '../local/serve-status.ts';
import { LocalForwarder } from '../local/forward.ts';
import { DEFAULT_LOCAL_PORT, startLocalHttp } from '../local/http.ts';
import { startLocalStdio } from '../local/stdio.ts';
import { reserveStdout } from '../local/stdout.ts';
import { parsePort, vimListenerOption } from './ports.ts';
import { loadOrCreateLocalToken, localTokenFile } from '../local/token.ts';
import { createLogger } from '../log.ts';
import { openCallGuard } from '../policy/setup.ts';
import { ownPlaces } from '../policy/own-files.ts';
import { interrupted } from './signals.ts';
import { parseToolsOption } from './tools-option.ts';
import { WHOLE_SERVING, type McpServing } from '../../protocol/mcp-server.ts';
import { reportCollections } from '../calls/quiet-collect.ts';

export interface ServeOptions {
  stdio?: boolean;
  http?: boolean;
  port?: string;
  'discover-dir'?: string[];
  'vim-port'?: string;
  tools?: string;
  verbose?: boolean;
}

export async function serveCommand(opts: ServeOptions): Promise<number> {
  if (Boolean(opts.stdio) === Boolean(opts.http)) throw new Error('serve takes exactly one of --stdio and --http');
  if (opts.port !== undefined && !opts.http) throw new Error('--port goes with --http');
  const port = opts.port === undefined ? DEFAULT_LOCAL_PORT : parsePort(opts.port, '--port');
  // One caller with every class (the agent's policy decides each call): the list depends on
  // --tools alone.
  const serving: McpServing = opts.tools === undefined ? WHOLE_SERVING : { view: { toolset: parseToolsOption(opts.tools), scopes: WHOLE_SERVING.view.scopes }, perGrant: false };
  // First of all: from here on, nothing but protocol messages may reach stdout.
  const channel = opts.stdio ? reserveStdout() : undefined;
  // Listening before anything is printed: a client may stop us as soon as it reads the URL.
  const stopped = interrupted();

  const p = paths();
  // Before anything starts: an invalid policy file stops `serve` here.
  const guard = openCallGuard(p, ownPlaces(process.env));
  ensurePrivateDir(p.stateDir);
  const logger = createLogger({ level: opts.verbose ? 'debug' : 'info', file: p.log });
  reportCollections((fields) => logger.debug('calls went quiet: collected what they left', fields));
  const dirs = opts['discover-dir'] ?? readAgentConfig(p.config).socketDirs ?? defaultSocketDirs();
  const editors = createEditorSource({ logger, vim: vimListenerOption(opts['vim-port'], { role: 'serve' }), dirs });
  const unannounce = announceEditors(editors, logger);
  const forwarder = new LocalForwarder({ editors, guard, device: hostname(), client: channel ? 'local:stdio' : 'local:http' });
  try {
    if (channel) {
      const session = await startLocalStdio({ forwarder, stdin: process.stdin, stdout: channel, logger, serving });
      logger.info('serving MCP on stdio');
      const unpublish = publishServeStatus(p.serveStatus, 'stdio', null, editors, dirs, logger);
      await Promise.race([session.closed, stopped]);
      unpublish();
      await session.close();
    } else {
      const token = loadOrCreateLocalToken(localTokenFile(p.configDir));
      const server = await startLocalHttp({ forwarder, token, port, logger, serving });
      // The one place the token is shown; it is never logged.
      process.stdout.write(`MCP URL: ${server.mcpUrl}\nAccess token: ${token}\n`);
      logger.info('serving MCP over HTTP', { url: server.mcpUrl });
      const unpublish = publishServeStatus(p.serveStatus, 'http', server.mcpUrl, editors, dirs, logger);
      await stopped;
      unpublish();
      await server.close();
    }
  } finally {
    unannounce();
    await editors.stop();
  }
  return 0;
}

