/**
 * `vimrelay serve --stdio`: one MCP server over stdin and stdout for the client that spawned the
 * process (Claude Code, Claude Desktop, Cursor), answering from this machine's editors through the
 * shared server (protocol/mcp-server.ts). stdout carries protocol messages only (the caller passes
 * the stream reserveStdout() returned); logs go to stderr. The session ends when stdin closes,
 * which is how a client says it is done, or on close().
 */
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { buildMcpServer } from '../../protocol/mcp-server.ts';
import type { Logger } from '../log.ts';
import type { LocalForwarder } from './forward.ts';

export interface LocalStdioOptions {
  forwarder: LocalForwarder;
  stdin: Readable;
  /** The protocol channel: reserveStdout()'s stream. */
  stdout: Writable;
  logger: Logger;
}

export interface LocalStdio {
  /** Settles when the session is over. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

export async function startLocalStdio(opts: LocalStdioOptions): Promise<LocalStdio> {
  // The SDK aborts `extra.signal` on `notifications/cancelled` for that request (stateful session).
  const server = buildMcpServer((call, extra) => opts.forwarder.run(call, { signal: extra.signal }));
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  const end = (): void => void server.close();
  opts.stdin.once('end', end);
  opts.stdin.once('close', end);
  opts.stdout.on('error', (error) => {
    // EPIPE and the like: the client is gone, nobody is left to answer.
    opts.logger.debug('stdout closed', { error: error.message });
    end();
  });
  await server.connect(new StdioServerTransport(opts.stdin, opts.stdout));
  return { closed, close: () => server.close() };
}
