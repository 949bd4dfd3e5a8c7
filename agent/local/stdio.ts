/**
 * `vimrelay serve --stdio`: one MCP connection over stdin and stdout for the client that spawned
 * the process (Claude Code, Claude Desktop, Cursor), answering from this machine's editors through
 * the shared server (protocol/mcp-server.ts). Both protocol eras: the SDK's `serveStdio` pins the
 * connection to the era its opening message selects (`initialize`: the 2025 revision it
 * negotiates; a 2026-07-28 request or `server/discover`: the current one; spec 2026-07-28
 * "basic/versioning", Backward Compatibility). In both, `notifications/cancelled` cancels the
 * request it names (spec 2026-07-28 "basic/transports/stdio", Cancellation): one client per
 * connection, so an id is unambiguous. stdout carries protocol messages only (the caller passes
 * the stream reserveStdout() returned); logs go to stderr. A line that is not a JSON-RPC message,
 * or longer than LIMITS.maxStdioLineBytes, is answered with an error before the SDK sees it
 * (stdio-gate.ts). Each answer is written as the bytes of its JSON (stdio-transport.ts). The
 * session ends when stdin closes, which is how a client says it is done, or on close().
 */
import type { Readable, Writable } from 'node:stream';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { refusalBody } from '../../protocol/http/mcp-edge.ts';
import { LIMITS } from '../../protocol/index.ts';
import { mcpServerFactory, WHOLE_SERVING, type McpServing } from '../../protocol/mcp-server.ts';
import type { Logger } from '../log.ts';
import type { LocalForwarder } from './forward.ts';
import { gateLines } from './stdio-gate.ts';
import { EncodingStdioTransport } from './stdio-transport.ts';

export interface LocalStdioOptions {
  forwarder: LocalForwarder;
  stdin: Readable;
  /** The protocol channel: reserveStdout()'s stream. */
  stdout: Writable;
  logger: Logger;
  /** What it lists and serves (`--tools`); default the whole catalog. */
  serving?: McpServing;
}

export interface LocalStdio {
  /** Settles when the session is over. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

export async function startLocalStdio(opts: LocalStdioOptions): Promise<LocalStdio> {
  // The SDK aborts the request's signal on `notifications/cancelled` for that request.
  const factory = mcpServerFactory(
    (call, request) => opts.forwarder.serve(call, { signal: request.signal, ui: request.ui, ...(request.clientName === undefined ? {} : { clientName: request.clientName }) }, request.assistant),
    opts.serving ?? WHOLE_SERVING,
    // One client per connection, which can carry `elicitation/create` to a 2025-era client.
    { serverRequests: true },
  );
  // A refusal is one whole write, as each of the transport's messages is: they never interleave.
  const lines = gateLines(opts.stdin, LIMITS.maxStdioLineBytes, (refusal) => {
    opts.logger.debug('stdio line refused', { code: refusal.code });
    opts.stdout.write(refusalBody(refusal) + '\n');
  });
  const handle = serveStdio(factory, {
    transport: new EncodingStdioTransport(lines, opts.stdout),
    onerror: (error) => opts.logger.debug('stdio MCP error', { error: error.message }),
  });
  let ended = false;
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const end = async (): Promise<void> => {
    if (ended) return closed;
    ended = true;
    try {
      await handle.close();
    } catch (error) {
      // Closing a transport whose client is gone may fail; the server is over either way.
      opts.logger.debug('stdio MCP close failed', { error: String(error) });
    } finally {
      resolveClosed();
    }
  };
  opts.stdin.once('end', () => void end());
  opts.stdin.once('close', () => void end());
  opts.stdout.on('error', (error) => {
    // EPIPE and the like: the client is gone, nobody is left to answer.
    opts.logger.debug('stdout closed', { error: error.message });
    void end();
  });
  return { closed, close: end };
}
