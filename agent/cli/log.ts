/**
 * `vimrelay log [-n N]`: the last N entries of the audit log (agent/audit/log.ts), oldest
 * first, as an aligned table: time, client, editor, tool, decision, outcome, duration. The client
 * is named as prompts name it (calls/client-names.ts: its name, with its id beside it when another
 * client shown has that name too); every cell goes through printable: a name is the client's own
 * words, and this is a terminal.
 */
import { readAudit } from '../audit/log.ts';
import { labelsOf } from '../calls/client-names.ts';
import { paths } from '../config/paths.ts';
import { printable } from './printable.ts';

/** Entries shown when -n is not given. */
export const DEFAULT_LOG_ENTRIES = 20;

export function logCommand(opts: { n?: string | undefined }): number {
  const n = opts.n === undefined ? DEFAULT_LOG_ENTRIES : Number(opts.n);
  if (!Number.isInteger(n) || n < 1) throw new Error(`-n takes a positive whole number, not ${opts.n ?? ''}`);
  const file = paths().audit;
  const entries = readAudit(file, n);
  if (entries.length === 0) {
    process.stdout.write(`no calls recorded yet (${printable(file)})\n`);
    return 0;
  }
  const labels = labelsOf(entries);
  const rows = [
    ['TIME', 'CLIENT', 'EDITOR', 'TOOL', 'DECISION', 'OUTCOME', 'DURATION'],
    ...entries.map((e, i) => [e.time, labels[i] ?? e.client, e.editor || '-', e.tool, e.decision, e.outcome, `${e.duration_ms} ms`].map(printable)),
  ];
  const widths = rows[0]?.map((_, col) => Math.max(...rows.map((r) => (r[col] ?? '').length))) ?? [];
  const lines = rows.map((r) => r.map((cell, col) => (col === r.length - 1 ? cell : cell.padEnd(widths[col] ?? 0))).join('  '));
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}
