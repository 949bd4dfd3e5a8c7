/**
 * The agent's logger. Never writes to stdout: stdout may be a protocol channel (stdio MCP).
 * Lines go to stderr and, when one is given, are appended to a file too, kept 0600 (it names the
 * user's files and editors). Never log a token.
 *
 * Logging never throws, and never stops the process: a line the file cannot take (no descriptor
 * left, EMFILE; a full disk; the directory gone) still goes to stderr, the first such failure is
 * said there once, and when the file takes lines again it is told how many it missed. Errors of
 * stderr itself (a closed pipe) are dropped; the file keeps the log.
 */
import { appendFileSync, chmodSync, statSync } from 'node:fs';

export type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export interface LoggerOptions {
  level?: Level;
  /** Also append every line here (its directory must exist), created 0600; an existing file is narrowed to 0600. */
  file?: string;
}

export function createLogger({ level = 'info', file }: LoggerOptions = {}): Logger {
  if (file) narrow(file);
  keepStderrErrorsQuiet();
  const appendToFile = file ? fileAppender(file) : (): void => {};
  const write = (lvl: Level, msg: string, fields?: Record<string, unknown>): void => {
    if (ORDER[lvl] < ORDER[level]) return;
    const extra = fields && Object.keys(fields).length > 0 ? ' ' + JSON.stringify(fields) : '';
    const line = `${new Date().toISOString()} ${lvl.padEnd(5)} ${msg}${extra}\n`;
    // The file first: whoever sees a line on stderr can count on finding it in the file.
    appendToFile(line);
    toStderr(line);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}

/**
 * Appends lines to `file`, never throwing: see the module header. What it says of a failure and
 * of the recovery goes to stderr only (and the recovery into the file too).
 */
function fileAppender(file: string): (line: string) => void {
  let missed = 0;
  return (line) => {
    const gap = missed > 0 ? `${new Date().toISOString()} warn  ${missed} line(s) before this one could not be written to this file\n` : '';
    try {
      appendFileSync(file, gap + line, { mode: 0o600 });
      if (missed > 0) toStderr(gap);
      missed = 0;
    } catch (err) {
      if (missed === 0) toStderr(`${new Date().toISOString()} warn  cannot write the log file ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)}); its lines go to stderr only until it can\n`);
      missed++;
    }
  };
}

function toStderr(text: string): void {
  try {
    process.stderr.write(text);
  } catch {
    // A stderr that cannot take the line (closed) loses it; the file has it.
  }
}

/**
 * Without a listener, an asynchronous error of process.stderr (EPIPE once its reader has gone)
 * would be thrown from the event loop and end the process; a log line is not worth that.
 */
function keepStderrErrorsQuiet(): void {
  if (process.stderr.listenerCount('error') === 0) process.stderr.on('error', () => {});
}

/** Makes an existing `file` 0600 (appendFileSync's mode applies only to a file it creates). */
function narrow(file: string): void {
  try {
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** A logger that drops everything, for library use where the caller does not want output. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
