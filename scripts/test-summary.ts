/**
 * Sums vitest JSON reports into one closing line, "N passed, N failed[, N skipped]": each report
 * file named on the command line, and the workers and node suites' reports in each directory
 * named (test-artifacts when none is). A suite that produced no report counts as one failure, so a crash cannot pass silently;
 * so does a test file that failed with all its tests passed (a hook that threw: its afterAll, say).
 * Each failure is named, with the first lines of its message, just above the closing line: a CI
 * log that keeps only its tail still says what failed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const named = process.argv.length > 2 ? process.argv.slice(2) : ['test-artifacts'];
const expected = named.flatMap((arg) => (arg.endsWith('.json') ? [arg] : ['workers.json', 'node.json'].map((name) => join(arg, name))));
let passed = 0;
let failed = 0;
let skipped = 0;
const failedLines: string[] = [];

/** The first lines of a failure message, indented, without the terminal's colour codes. */
function excerpt(message: string): string[] {
  return stripVTControlCharacters(message)
    .split('\n')
    .filter((line) => line.trim())
    .slice(0, 6)
    .map((line) => `    ${line.slice(0, 200)}`);
}

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
    testResults: {
      name: string;
      status: string;
      message: string;
      assertionResults: { status: string; fullName: string; failureMessages: string[] }[];
    }[];
  };
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  for (const result of report.testResults) {
    const failures = result.assertionResults.filter((a) => a.status === 'failed');
    for (const failure of failures) {
      failedLines.push(`${file}: ${relative('.', result.name)} > ${failure.fullName}`, ...excerpt(failure.failureMessages.join('\n')));
    }
    if (result.status !== 'failed' || failures.length) continue;
    failedLines.push(`${file}: ${relative('.', result.name)}: failed outside its tests (a hook)`, ...excerpt(result.message));
    failed += 1;
  }
  skipped += report.numPendingTests + report.numTodoTests;
}
for (const line of failedLines) process.stdout.write(`${line}\n`);
// The last line is exactly "N passed, N failed"; the skipped ones are said on the line before.
if (skipped) process.stdout.write(`${skipped} skipped\n`);
process.stdout.write(`${passed} passed, ${failed} failed\n`);
