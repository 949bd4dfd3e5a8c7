/**
 * Reserving stdout for the MCP stdio channel (spec 2025-11-25 "Transports / stdio": the server
 * MUST NOT write anything to stdout that is not a valid MCP message). Once reserved, every other
 * write to `process.stdout` (a `console.log` in a dependency, a stray print) goes to stderr, and
 * the returned stream is the only way left to stdout.
 */
import { Writable } from 'node:stream';
import { utf8Bytes } from '../utf8.ts';

/** Bytes the channel buffers before a writer is asked to wait (Writable's highWaterMark). */
const STDOUT_HIGH_WATER_BYTES = 4 * 1024 * 1024;

/** Takes stdout for the protocol; call it before anything else may print. */
export function reserveStdout(): Writable {
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout);
  const channel = new Writable({
    // Room for a few whole answers (one can be 200 KB of JSON): with the default 16 KiB mark every
    // answer waited for 'drain', and the finished calls behind it stayed in memory meanwhile.
    highWaterMark: STDOUT_HIGH_WATER_BYTES,
    // Strings wait as they are and are encoded in one pass when their turn comes (utf8.ts): a
    // Buffer.from, as decodeStrings would do, or stdout's own write of a string, counts the bytes
    // first, which cost more than the encoding.
    decodeStrings: false,
    // One chunk at a time, each handed on once stdout has taken it: back-pressure carries over.
    write(chunk: string | Buffer, encoding: BufferEncoding, done) {
      const bytes = typeof chunk === 'string' && (encoding === 'utf8' || encoding === 'utf-8') ? utf8Bytes(chunk) : chunk;
      write(bytes, encoding, (error) => done(error ?? null));
    },
  });
  stdout.write = process.stderr.write.bind(process.stderr) as typeof stdout.write;
  // EPIPE and the like (the client is gone) surface on the channel, where the session handles them.
  stdout.on('error', (error) => channel.destroy(error));
  return channel;
}
