/**
 * The recent-calls log: one row per tool call the Hub routed, for the owner's dashboard. Owns the
 * `call_log` table in the Hub's SQLite storage and keeps only the newest `CALL_LOG_KEEP` rows.
 *
 * What a row holds is fixed here and deliberately small: when, which tool, which editor, which
 * client, the outcome code and how long it took. Never arguments, results or buffer text: the log
 * is shown in a browser and must not become a copy of the user's files.
 *
 * Off the calls' path: a call's row is written with the others of the same second, in one
 * transaction, a moment after the call answered (a write per call cost every call the wait for its
 * commit). Reading the log writes what is pending first. The rows of the last second before the
 * Hub is evicted (a deploy) may be lost: the log is for the owner's eyes, not an audit trail (the
 * agent's audit log is).
 */

/** How many calls the log keeps; older rows are deleted as new ones are written. */
export const CALL_LOG_KEEP = 200;

/** How long a call's row waits to be written with the rows that follow it (ms). */
export const CALL_LOG_FLUSH_MS = 1_000;

const SCHEMA = `CREATE TABLE IF NOT EXISTS call_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  tool TEXT NOT NULL,
  editor TEXT NOT NULL,
  client TEXT NOT NULL,
  outcome TEXT NOT NULL,
  duration_ms INTEGER NOT NULL
)`;

/** One logged call as the dashboard shows it. `at` is ISO 8601. */
export interface LoggedCall {
  at: string;
  tool: string;
  /** Public editor id (or device name for an agent-level tool); '' when the call reached none. */
  editor: string;
  /** The caller's client id: `pat:<name>`, an OAuth client id, ... */
  client: string;
  /** `ok`, or the stable error code of the failure (`NO_EDITOR`, `TIMEOUT`, ...). */
  outcome: string;
  duration_ms: number;
}

/** What the Hub records for one call (no arguments, no result). */
export interface CallRecord {
  atMs: number;
  tool: string;
  editor: string;
  client: string;
  outcome: string;
  durationMs: number;
}

type Row = { at: number; tool: string; editor: string; client: string; outcome: string; duration_ms: number };

// Names and codes are short; a cap keeps one odd value from bloating every dashboard load.
const MAX_FIELD = 200;
const cap = (text: string): string => (text.length > MAX_FIELD ? text.slice(0, MAX_FIELD) : text);

export class CallLog {
  /** Calls answered and not written yet, oldest first (at most CALL_LOG_KEEP are ever written). */
  #pending: CallRecord[] = [];
  #flush: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly storage: DurableObjectStorage) {
    storage.sql.exec(SCHEMA);
  }

  /** Records one call: written within CALL_LOG_FLUSH_MS, or before the log is next read. */
  record(call: CallRecord): void {
    this.#pending.push(call);
    if (this.#pending.length > CALL_LOG_KEEP) this.#pending.shift();
    this.#flush ??= setTimeout(() => this.flush(), CALL_LOG_FLUSH_MS);
  }

  /** Writes the pending calls and drops all but the newest `CALL_LOG_KEEP` rows (one transaction). */
  flush(): void {
    if (this.#flush !== undefined) clearTimeout(this.#flush);
    this.#flush = undefined;
    const calls = this.#pending;
    if (calls.length === 0) return;
    this.#pending = [];
    this.storage.transactionSync(() => {
      for (const call of calls) {
        this.storage.sql.exec(
          'INSERT INTO call_log (at, tool, editor, client, outcome, duration_ms) VALUES (?, ?, ?, ?, ?, ?)',
          call.atMs,
          cap(call.tool),
          cap(call.editor),
          cap(call.client),
          cap(call.outcome),
          Math.max(0, Math.round(call.durationMs)),
        );
      }
      this.storage.sql.exec('DELETE FROM call_log WHERE id <= (SELECT MAX(id) FROM call_log) - ?', CALL_LOG_KEEP);
    });
  }

  /** The newest `limit` calls (1..CALL_LOG_KEEP), newest first, those not written yet included. */
  recent(limit: number): LoggedCall[] {
    this.flush();
    const n = Math.min(CALL_LOG_KEEP, Math.max(1, Math.floor(limit) || 1));
    return this.storage.sql
      .exec<Row>('SELECT at, tool, editor, client, outcome, duration_ms FROM call_log ORDER BY id DESC LIMIT ?', n)
      .toArray()
      .map((row) => ({
        at: new Date(row.at).toISOString(),
        tool: row.tool,
        editor: row.editor,
        client: row.client,
        outcome: row.outcome,
        duration_ms: row.duration_ms,
      }));
  }
}
