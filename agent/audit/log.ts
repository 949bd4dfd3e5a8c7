/**
 * The audit log (README "Permissions"): one JSON line per call the agent
 * handles, refused ones included, at `$XDG_STATE_HOME/vimrelay/audit.log` (mode 0600):
 * `{ time, client, client_name?, editor, tool, args_digest, decision, outcome, duration_ms }`. It never holds
 * buffer content, arguments or secrets — only `args_digest`, the first 16 hex characters of the
 * SHA-256 of the arguments' canonical JSON (keys sorted), enough to tell two calls apart or match
 * a call the user knows. Rotated by size: past `maxBytes` the file becomes `audit.log.1`, the older
 * ones shift up, and only `keep` old files remain.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, chmodSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { Surface } from '../../protocol/index.ts';
import { readOptionalFile } from '../config/private-file.ts';

/**
 * How the policy treated a call: its decision (`ask:*` with the user's answer; `ask:allow_session`
 * for "allow in this editor" in an editor the user has not named, and `session` for the calls that
 * answer then lets through unasked; `ask:timeout` when nobody answered before the prompt's
 * deadline, `ask:cancelled` when the call was cancelled while the prompt was up), `scope` when the
 * token's scopes refused it first, `never_read` when it would have read or edited a never_read
 * file, `own_file` when it would have touched one of vimrelay's own files (policy/own-files.ts), `offline` when the editor went away (exited, its channel closed) before the policy could
 * decide (while it said which files the call addresses, or while its prompt was up), `none` when
 * it was refused before the policy was consulted (unknown tool, invalid arguments, editor gone,
 * the call past its deadline on arrival). `review` when an edit under review changed nothing, or
 * failed before its review opened; `review:*` with the user's decision on its review
 * (README "Reviews"): `pending` when the call answered before they decided, and a later line of
 * its own when they did. `decided_by` says where the user answered a prompt or a review.
 */
export const AuditDecision = z.enum([
  'allow',
  'ask:allow_once',
  'ask:allow_always',
  'ask:allow_session',
  'ask:deny',
  'ask:timeout',
  'ask:cancelled',
  'session',
  'deny',
  'scope',
  'never_read',
  'own_file',
  'offline',
  'none',
  'review',
  'review:pending',
  'review:accepted',
  'review:accepted_with_changes',
  'review:partly_accepted',
  'review:rejected',
  'review:conflict',
  'review:expired',
  'review:offline',
]);
export type AuditDecision = z.infer<typeof AuditDecision>;

/** One line of the log. */
export const AuditEntry = z.object({
  /** ISO 8601, UTC. */
  time: z.string(),
  /** The client id (an OAuth client id, `pat:<name>`, `local:stdio`). */
  client: z.string(),
  /** The name it goes by, when one came (calls/client-names.ts); absent in lines from before names. */
  client_name: z.string().optional(),
  /** The editor id the call named ('' for a call to the agent itself). */
  editor: z.string(),
  tool: z.string(),
  args_digest: z.string(),
  decision: AuditDecision,
  /** `ok`, or the error code of the outcome. */
  outcome: z.string(),
  duration_ms: z.number(),
  /** Where the user answered the call's prompt or review: `editor`, `dashboard` (the relay's Pending page) or `assistant`. */
  decided_by: Surface.optional(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

/** Size past which the log rotates (bytes), and how many rotated files are kept. */
export const AUDIT_LIMITS = { maxBytes: 1024 * 1024, keep: 3 } as const;

/** First 16 hex characters of SHA-256 over the canonical JSON of `args` (keys sorted, recursively). */
export function argsDigest(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex').slice(0, 16);
}

/** JSON with object keys sorted at every level, so equal arguments give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Appends entries to the audit log file, rotating it by size. Writes are synchronous and small. */
export class AuditLog {
  readonly file: string;
  readonly #maxBytes: number;
  readonly #keep: number;

  constructor(file: string, limits: { maxBytes?: number; keep?: number } = {}) {
    this.file = file;
    this.#maxBytes = limits.maxBytes ?? AUDIT_LIMITS.maxBytes;
    this.#keep = limits.keep ?? AUDIT_LIMITS.keep;
  }

  /** Appends one entry. A failure to write is thrown: the caller decides whether to go on. */
  append(entry: AuditEntry): void {
    const line = JSON.stringify(entry) + '\n';
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    if (sizeOf(this.file) + Buffer.byteLength(line) > this.#maxBytes) this.#rotate();
    appendFileSync(this.file, line, { mode: 0o600 });
    // appendFileSync's mode applies only when it creates the file; a file made otherwise is narrowed.
    chmodSync(this.file, 0o600);
  }

  #rotate(): void {
    if (sizeOf(this.file) === 0) return;
    rmSync(`${this.file}.${this.#keep}`, { force: true });
    for (let i = this.#keep - 1; i >= 1; i--) {
      if (sizeOf(`${this.file}.${i}`) > 0) renameSync(`${this.file}.${i}`, `${this.file}.${i + 1}`);
    }
    renameSync(this.file, `${this.file}.1`);
  }
}

/**
 * The last `n` entries, oldest first, from the log and its rotated files. Lines that do not parse
 * (a hand edit, a torn write) are skipped.
 */
export function readAudit(file: string, n: number, keep: number = AUDIT_LIMITS.keep): AuditEntry[] {
  const entries: AuditEntry[] = [];
  for (let i = 0; i <= keep && entries.length < n; i++) {
    const text = readOptionalFile(i === 0 ? file : `${file}.${i}`);
    if (text === undefined) continue;
    const parsed = text.split('\n').flatMap((line) => {
      if (line.trim() === '') return [];
      try {
        const entry = AuditEntry.safeParse(JSON.parse(line));
        return entry.success ? [entry.data] : [];
      } catch {
        return [];
      }
    });
    entries.unshift(...parsed.slice(Math.max(0, parsed.length - (n - entries.length))));
  }
  return entries;
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
}
