/**
 * Writes test/timings.json, the seconds each Node suite file took (test/setup/sequencer.ts starts
 * the longest first), from Vitest JSON reports: `npx tsx scripts/test-timings.ts
 * test-artifacts/node.json [more reports]`. A file in several reports keeps its longest time;
 * whole seconds, so that a run on a slightly different machine changes few lines. A report may
 * come from another checkout: its paths are taken from `test/` on.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Timings } from '../test/setup/sequencer.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** `name` (a path in the checkout the report was made in) from this project's root: its shortest suffix that names a file here. */
function fromRoot(name: string): string | undefined {
  for (let at = name.indexOf('/test/'); at >= 0; at = name.indexOf('/test/', at + 1)) {
    if (existsSync(join(ROOT, name.slice(at + 1)))) return name.slice(at + 1);
  }
  return undefined;
}

const reports = process.argv.slice(2);
if (reports.length === 0) {
  process.stderr.write('usage: npx tsx scripts/test-timings.ts REPORT.json [REPORT.json ...]\n');
  process.exit(2);
}
const seconds: Record<string, number> = {};
for (const file of reports) {
  const report = JSON.parse(readFileSync(file, 'utf8')) as { testResults: { name: string; startTime: number; endTime: number }[] };
  for (const result of report.testResults) {
    const path = fromRoot(result.name);
    if (path === undefined) continue;
    seconds[path] = Math.max(seconds[path] ?? 0, Math.round((result.endTime - result.startTime) / 1000));
  }
}
const sorted: Timings = { seconds: Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => (a < b ? -1 : 1))) };
writeFileSync(new URL('../test/timings.json', import.meta.url), `${JSON.stringify(sorted, null, 2)}\n`);
process.stdout.write(`test/timings.json: ${Object.keys(seconds).length} files\n`);
