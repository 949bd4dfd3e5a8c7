// Tests that run on Node against real nvim, a real relay in local workerd and a real MCP client.
import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirst from './setup/sequencer.ts';

/**
 * Files the run leaves out: VIMRELAY_TEST_SKIP, comma-separated globs from the project root. `.ci/run`
 * leaves the end-to-end tool, review and LSP suites out of its pass on the oldest editors, because
 * its pass on the newest runs them (test/README.md "Which editors"); the run says so on stderr.
 */
const skipped = (process.env.VIMRELAY_TEST_SKIP ?? '').split(',').map((g) => g.trim()).filter(Boolean);
if (skipped.length > 0) process.stderr.write(`VIMRELAY_TEST_SKIP leaves out ${skipped.join(', ')}\n`);

export default defineConfig({
  test: {
    include: ['test/scripts/**/*.test.ts', 'test/protocol/**/*.test.ts', 'test/agent/**/*.test.ts', 'test/plugin/**/*.test.ts', 'test/e2e/**/*.test.ts', 'test/setup/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...skipped],
    // Temporary and XDG directories of the run's own, where no running agent looks (hermetic.ts);
    // VIMRELAY_TEST_EDITORS picks the Neovim and Vim under test (editors.ts); what the machine
    // lacks is fetched without root and put first on PATH (machine.ts); a Python interpreter
    // rather than a version manager's shim of it (python.ts).
    globalSetup: ['test/setup/hermetic.ts', 'test/setup/editors.ts', 'test/setup/machine.ts', 'test/setup/python.ts'],
    setupFiles: ['test/setup/keep-alive.ts', 'test/setup/temp-dirs.ts', 'test/setup/no-warnings.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The files mostly wait (on editors, workerd, language servers, deadlines) rather than compute:
    // at 2 workers on 2 cores the suite used 1.07 cores and took 370 s, at 4 it used 1.57 and took
    // 273 s. Two per core, at most 4: each end-to-end file starts its own workerd and editors. At
    // 6 on 2 cores the whole suite took 474 s instead of 514, with the cores 98 % busy, and an
    // editor's attach and a Vim's screen failed as they never had at 4.
    maxWorkers: Math.min(4, 2 * availableParallelism()),
    // A worker runs file after file in one module graph, not a fresh one per file: every file
    // cleans up what it starts (processes, directories, listeners: setup/), and on a fresh clone
    // the files' own imports took 116 s of the 554 s run, without isolation 19 s of 485 s.
    isolate: false,
    // The longest files first (test/timings.json when Vitest has no timings of its own).
    sequence: { sequencer: LongestFirst },
  },
});
