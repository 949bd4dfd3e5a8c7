/**
 * The order the Node suite's files start in: the longest first, so that the last to start are
 * short ones and no worker runs one long file alone at the end. Vitest does this itself only from
 * its own cache of an earlier run in the same checkout; a fresh clone (CI) has none and started
 * files in the order found, which left a 146 s file to start at 411 s of a 753 s run. So the
 * durations come from Vitest's cache where it has them, else from test/timings.json (seconds per
 * file, as `npx tsx scripts/test-timings.ts` writes it from a run's report); a file in neither is
 * new, and goes first, as Vitest's own order puts it. Files that failed last time go first of all.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** test/timings.json: seconds each file took, by its path from the project's root. */
export interface Timings {
  seconds: Record<string, number>;
}

const TIMINGS = new URL('../timings.json', import.meta.url);

function committed(): Record<string, number> {
  try {
    return (JSON.parse(readFileSync(TIMINGS, 'utf8')) as Timings).seconds;
  } catch {
    return {};
  }
}

export default class LongestFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = committed();
    const root = this.ctx.config.root;
    const known = (spec: TestSpecification): { failed: boolean; seconds: number } => {
      const path = relative(root, spec.moduleId);
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`);
      return { failed: cached?.failed ?? false, seconds: cached ? cached.duration / 1000 : (seconds[path] ?? Number.POSITIVE_INFINITY) };
    };
    const keyed = files.map((spec) => ({ spec, ...known(spec) }));
    keyed.sort((a, b) => Number(b.failed) - Number(a.failed) || b.seconds - a.seconds);
    return Promise.resolve(keyed.map(({ spec }) => spec));
  }
}
