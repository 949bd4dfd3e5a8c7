/**
 * The recent-calls log: one row per tool call the Hub routed, for the owner's dashboard. Owns the
 * `call_log` table in the Hub's SQLite storage and keeps only the newest `CALL_LOG_KEEP` rows.
 *
 * What a row holds is fixed here and deliberately small: when, which tool, which editor, which
 * client, the outcome code and how long it took. Never arguments, results or buffer text: the log
 * is shown in a browser and must not become a copy of the user's files.
 */

/** How many calls the log keeps; older rows are deleted on insert. */
export const CALL_LOG_KEEP = 200;

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
  constructor(private readonly storage: DurableObjectStorage) {
    storage.sql.exec(SCHEMA);
  }

  /** Appends one call and drops all but the newest `CALL_LOG_KEEP` (one transaction). */
  record(call: CallRecord): void {
    this.storage.transactionSync(() => {
      this.storage.sql.exec(
        'INSERT INTO call_log (at, tool, editor, client, outcome, duration_ms) VALUES (?, ?, ?, ?, ?, ?)',
        call.atMs,
        cap(call.tool),
        cap(call.editor),
        cap(call.client),
        cap(call.outcome),
        Math.max(0, Math.round(call.durationMs)),
      );
      this.storage.sql.exec('DELETE FROM call_log WHERE id <= (SELECT MAX(id) FROM call_log) - ?', CALL_LOG_KEEP);
    });
  }

  /** The newest `limit` calls (1..CALL_LOG_KEEP), newest first. */
  recent(limit: number): LoggedCall[] {
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
