/**
 * `silentListener(path)`: a unix socket that accepts connections and never answers, as a stopped
 * agent's does (the kernel accepts on a stopped process's socket). It reads and drops what a client
 * sends, so that the client's end is seen: each accepted connection is in `held`, with `ended` set
 * once the client closed it. `close()` drops every connection and the socket.
 */
import { createServer, type Socket } from 'node:net';

export interface SilentListener {
  readonly held: readonly { readonly socket: Socket; readonly ended: boolean }[];
  close(): Promise<void>;
}

export async function silentListener(path: string): Promise<SilentListener> {
  const held: { socket: Socket; ended: boolean }[] = [];
  const server = createServer((socket) => {
    const conn = { socket, ended: false };
    held.push(conn);
    socket.on('error', () => {});
    socket.resume();
    socket.on('end', () => (conn.ended = true));
    socket.on('close', () => (conn.ended = true));
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return {
    held,
    async close() {
      for (const conn of held) conn.socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
