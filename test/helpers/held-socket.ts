/**
 * A Unix socket in front of another, forwarding bytes both ways as they come, except that while
 * `hold` is set, the first chunk from the client that holds `marker` (a msgpack-RPC method name
 * appears in it as plain bytes) is kept back, with everything the client sends after it, until
 * `release`. That lets a test put a moment of its choosing between two requests an agent sends
 * back to back. Bytes are never reordered.
 */
import { createConnection, createServer, type Socket } from 'node:net';

export interface HeldSocket {
  /** Where clients connect. */
  readonly path: string;
  /** Holds the next chunk that holds `marker`, and all that follows it. */
  hold(marker: string): void;
  /** Whether a chunk is held. */
  holding(): boolean;
  /** Forwards what was held, and everything after it as it comes. */
  release(): void;
  close(): Promise<void>;
}

export async function heldSocket(path: string, target: string): Promise<HeldSocket> {
  let marker: Buffer | undefined;
  const held: { upstream: Socket; chunk: Buffer }[] = [];
  const sockets: Socket[] = [];
  const server = createServer((client) => {
    const upstream = createConnection(target);
    sockets.push(client, upstream);
    upstream.on('data', (chunk) => client.write(chunk));
    client.on('data', (chunk) => {
      const behind = held.some((each) => each.upstream === upstream);
      if (!behind && (marker === undefined || !chunk.includes(marker))) {
        upstream.write(chunk);
        return;
      }
      marker = undefined;
      held.push({ upstream, chunk });
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, resolve);
  });
  return {
    path,
    hold(method) {
      marker = Buffer.from(method);
    },
    holding: () => held.length > 0,
    release() {
      for (const { upstream, chunk } of held.splice(0)) upstream.write(chunk);
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
