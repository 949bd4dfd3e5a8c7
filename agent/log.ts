/**
 * The agent's logger. Never writes to stdout: stdout may be a protocol channel (stdio MCP).
 * Lines go to stderr and, when one is given, are appended to a file too, kept 0600 (it names the
 * user's files and editors). Never log a token.
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
  const write = (lvl: Level, msg: string, fields?: Record<string, unknown>): void => {
    if (ORDER[lvl] < ORDER[level]) return;
    const extra = fields && Object.keys(fields).length > 0 ? ' ' + JSON.stringify(fields) : '';
    const line = `${new Date().toISOString()} ${lvl.padEnd(5)} ${msg}${extra}\n`;
    // The file first: whoever sees a line on stderr can count on finding it in the file.
    if (file) appendFileSync(file, line, { mode: 0o600 });
    process.stderr.write(line);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
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
