/**
 * The local relay's log file (`relay-dev.log` under `npm start`): whatever the relay's process
 * prints (Miniflare, workerd, the Worker's console, workerd's reports). Any local account reaches
 * the relay's port and can make the Worker print, so what it prints is written as text that
 * cannot act on a terminal, in a file that cannot grow without bound:
 *
 * - control characters (C0 but tab, DEL, C1) and the bidirectional controls are written escaped,
 *   `\x1b`, `\u202e`: `cat` or `tail -f` of the log shows them, never obeys them;
 * - a line longer than `lineChars` is cut, saying so, and the rest of it dropped;
 * - past `maxBytes` the file is renamed `.1` (`.1` to `.2`, ... up to `.keep`, the oldest
 *   dropped), so the log and its rotated files hold at most (keep + 1) × maxBytes.
 *
 * Files are created 0600. A write never throws: a line that cannot be written (disk full) is lost,
 * and the relay goes on.
 */
import { appendFileSync, renameSync, rmSync, statSync, truncateSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

export interface RelayLogLimits {
  /** Size past which the file rotates (bytes). */
  maxBytes: number;
  /** Rotated files kept (`.1` … `.keep`). */
  keep: number;
  /** Longest line written whole (characters, before escaping). */
  lineChars: number;
}

/** 1 MiB a file, two rotated files kept (3 MiB in all), lines of up to 16 Ki characters. */
export const RELAY_LOG_LIMITS: RelayLogLimits = { maxBytes: 1024 * 1024, keep: 2, lineChars: 16 * 1024 };

// C0 controls but tab (a line's own newline never gets here), DEL, C1, and the bidirectional
// embeddings, overrides and isolates (Unicode UAX #9), which reorder what a terminal shows.
// eslint-disable-next-line no-control-regex -- control characters are what is matched
const CONTROLS = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every control character written as an escape (`\x1b`, `\u202e`). */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** One stream's lines into a RelayLog: a partial line waits for its end, apart from the other streams'. */
export interface RelayLogStream {
  /** Takes what the stream printed: whole lines are written, a partial one waits for its end. */
  write(chunk: Buffer | string): void;
  /** Writes a partial last line, if any. */
  end(): void;
}

export class RelayLog {
  readonly #file: string;
  readonly #limits: RelayLogLimits;
  #size: number;

  constructor(file: string, limits: RelayLogLimits = RELAY_LOG_LIMITS) {
    this.#file = file;
    this.#limits = limits;
    // Created now (0600), so that the file is there to read, and private, before anything is written.
    this.#flush('', 0);
    this.#size = sizeOf(file);
  }

  /** A stream of lines into this log (one per stream of the relay: stdout, stderr). */
  stream(): RelayLogStream {
    const decoder = new StringDecoder('utf8');
    const { lineChars } = this.#limits;
    /** The line being received (not yet ended by a newline), and whether it was cut (the rest is dropped). */
    let pending = '';
    let cutting = false;
    const write = (chunk: Buffer | string): void => {
      const parts = (typeof chunk === 'string' ? chunk : decoder.write(chunk)).split('\n');
      const lines: string[] = [];
      parts.forEach((part, i) => {
        if (!cutting) {
          pending += part;
          // Cut as soon as the line is known to be too long, so that a line without end is bounded too.
          if (pending.length > lineChars) {
            lines.push(`${escapeControls(pending.slice(0, lineChars))} [cut: a line longer than ${lineChars} characters]`);
            pending = '';
            cutting = true;
          }
        }
        // Every part but the last ended with a newline.
        if (i < parts.length - 1) {
          if (!cutting) lines.push(escapeControls(pending));
          pending = '';
          cutting = false;
        }
      });
      this.#append(lines);
    };
    return {
      write,
      end: () => {
        const rest = decoder.end();
        if (rest !== '' || pending !== '') write(`${rest}\n`);
      },
    };
  }

  /** Appends `lines`, rotating first whenever the file would pass `maxBytes`. */
  #append(lines: string[]): void {
    let batch = '';
    let batchBytes = 0;
    for (const line of lines) {
      const entry = `${line}\n`;
      const bytes = Buffer.byteLength(entry);
      if (this.#size + batchBytes + bytes > this.#limits.maxBytes && this.#size + batchBytes > 0) {
        if (batch !== '') this.#flush(batch, batchBytes);
        this.#rotate();
        batch = '';
        batchBytes = 0;
      }
      batch += entry;
      batchBytes += bytes;
    }
    if (batch !== '') this.#flush(batch, batchBytes);
  }

  #flush(batch: string, bytes: number): void {
    try {
      appendFileSync(this.#file, batch, { mode: 0o600 });
      this.#size += bytes;
    } catch {
      // Lost (disk full, the directory gone): the relay must go on.
    }
  }

  #rotate(): void {
    try {
      rmSync(`${this.#file}.${this.#limits.keep}`, { force: true });
      for (let i = this.#limits.keep - 1; i >= 1; i--) {
        if (sizeOf(`${this.#file}.${i}`) > 0) renameSync(`${this.#file}.${i}`, `${this.#file}.${i + 1}`);
      }
      renameSync(this.#file, `${this.#file}.1`);
    } catch {
      // Not rotated (renamed away meanwhile, say): emptied instead, so that it stays bounded.
      try {
        truncateSync(this.#file, 0);
      } catch {
        // Gone: the next write creates it.
      }
    }
    this.#size = 0;
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
