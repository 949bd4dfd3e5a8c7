/**
 * The edge of `serve --stdio`: what happens to a line of stdin before the SDK's transport reads it,
 * as protocol/http/mcp-edge.ts decides for an HTTP body. stdio carries one JSON-RPC message per
 * line (spec 2026-07-28 "basic/transports/stdio"). Left to itself, the SDK's transport skips a line
 * that is not JSON without a word, drops valid JSON that is not a JSON-RPC message, and closes the
 * whole session once more than 10 MiB wait unread: a client that sent such a request would wait for
 * its answer until it gave up. Here each such line is answered instead, with JSON-RPC 2.0 §5.1's
 * code and `id: null` (§5: the id could not be read), and the session goes on. A line over the cap
 * is dropped as it arrives, never held whole. Blank lines are skipped, as the SDK skips them.
 */
import { Transform, type Readable } from 'node:stream';
import { parseMcpBody, RPC, type EdgeRefusal } from '../../protocol/http/mcp-edge.ts';

/** A refused line's JSON-RPC error (refusalBody writes it); stdio has no HTTP status to give. */
export type LineRefusal = Pick<EdgeRefusal, 'code' | 'message'>;

/** The refusals of a line, in the HTTP edge's codes. */
function lineRefusals(maxLineBytes: number): Record<'parse' | 'invalid' | 'tooLarge', LineRefusal> {
  return {
    parse: { code: RPC.parseError, message: 'Parse error: the line is not valid JSON.' },
    invalid: { code: RPC.invalidRequest, message: 'Invalid Request: the line is not a JSON-RPC 2.0 message (one per line; stdio takes no batches).' },
    tooLarge: { code: RPC.serverError, message: `Request too large: a line of stdin must not exceed ${maxLineBytes} bytes.` },
  };
}

const NEWLINE = 0x0a;
const NEWLINE_BUFFER = Buffer.from('\n');

/**
 * The lines of `input` that are JSON-RPC messages, each ending in a newline, for the SDK's
 * transport to read; every other line is handed to `refuse` (in order, as it ends) and goes no
 * further.
 */
export function gateLines(input: Readable, maxLineBytes: number, refuse: (refusal: LineRefusal) => void): Readable {
  const refusals = lineRefusals(maxLineBytes);
  // The start of a line whose newline has not come yet, and whether it already passed the cap
  // (then its bytes are not kept, only counted out until its newline).
  let held: Buffer[] = [];
  let heldBytes = 0;
  let overflowing = false;

  const judge = (gate: Transform, line: Buffer): void => {
    const text = line.toString('utf8');
    if (text.trim() === '') return;
    // The HTTP edge's own check; a batch, which it takes for the 2025-03-26 era, is none here.
    const parsed = parseMcpBody(text);
    if (!parsed.ok) return refuse(parsed.refusal.code === RPC.parseError ? refusals.parse : refusals.invalid);
    if (Array.isArray(parsed.parsedBody)) return refuse(refusals.invalid);
    gate.push(line);
    gate.push(NEWLINE_BUFFER);
  };

  const gate = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let start = 0;
      for (let end = chunk.indexOf(NEWLINE, start); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
        const piece = chunk.subarray(start, end);
        start = end + 1;
        const tooLarge = overflowing || heldBytes + piece.length > maxLineBytes;
        const line = tooLarge || held.length === 0 ? piece : Buffer.concat([...held, piece]);
        held = [];
        heldBytes = 0;
        overflowing = false;
        if (tooLarge) refuse(refusals.tooLarge);
        else judge(this, line);
      }
      const rest = chunk.subarray(start);
      if (overflowing || rest.length === 0) return done();
      if (heldBytes + rest.length > maxLineBytes) {
        held = [];
        heldBytes = 0;
        overflowing = true;
      } else {
        held.push(rest);
        heldBytes += rest.length;
      }
      done();
    },
    // A last line without its newline is no message: the SDK would not read it either.
  });
  input.pipe(gate);
  return gate;
}
