/**
 * Sums vitest JSON reports into one closing line, "N passed, N failed[, N skipped]": the workers
 * and node suites' reports in each directory named on the command line (test-artifacts when
 * none is). A suite that produced no report counts as one failure, so a crash cannot pass silently;
 * so does a test file that failed with all its tests passed (a hook that threw: its afterAll, say).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dirs = process.argv.length > 2 ? process.argv.slice(2) : ['test-artifacts'];
const expected = dirs.flatMap((dir) => ['workers.json', 'node.json'].map((name) => join(dir, name)));
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of expected) {
  if (!existsSync(file)) {
    process.stdout.write(`${file}: no report (suite did not run to the end)\n`);
    failed += 1;
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8')) as {
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
    numTodoTests: number;
    testResults: { name: string; status: string; assertionResults: { status: string }[] }[];
  };
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  for (const result of report.testResults) {
    if (result.status !== 'failed' || result.assertionResults.some((a) => a.status === 'failed')) continue;
    process.stdout.write(`${result.name}: failed outside its tests (a hook)\n`);
    failed += 1;
  }
  skipped += report.numPendingTests + report.numTodoTests;
}
// The last line is exactly "N passed, N failed"; the skipped ones are said on the line before.
if (skipped) process.stdout.write(`${skipped} skipped\n`);
process.stdout.write(`${passed} passed, ${failed} failed\n`);
