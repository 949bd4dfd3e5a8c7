/**
 * Gives back what a burst of calls left behind once the calls go quiet: a full garbage collection
 * QUIET_MS after the last call ended, when the JS heap holds GROWTH_BYTES or more than after the
 * last one of ours. The dispatcher reports the end of every call (`callEnded`). What counts is the
 * memory the heap holds (`total_heap_size`), garbage and pages not handed back included, not what
 * is in use: V8 may have collected on its own near the end of a burst and still hold the pages.
 *
 * Why the agent collects itself: V8 collects when the program allocates, and an idle agent hardly
 * does. Node gives V8 no idle notifications (a browser does), and V8's own memory reducer may or
 * may not run: after 5,750 reads by 32 callers, `serve --stdio` sat 106-122 MiB above its collected
 * size, in one trial for 20 s, in another for all of 30 idle seconds, while a forced collection
 * showed it kept 2-4 MiB. A user's long-running agent is what `top` shows, not what a collection
 * would leave. The collection takes 30-40 ms on Node 20 and 140-160 ms on Node 24 (which compacts
 * and hands pages back as it goes), once after a burst, never while calls keep coming.
 *
 * The collector is V8's own `gc`, taken from a fresh context with `--expose-gc` set for that moment
 * only (`v8.setFlagsFromString`), so that nothing else in the process sees a `gc` global.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How long no call may have ended before collecting. */
const QUIET_MS = 5_000;
/** How much more the heap must hold than after our last collection: a few calls never trigger one. */
const GROWTH_BYTES = 16 * 1024 * 1024;

/** A debug line for the log: what the heap held before and after a collection, and in use after it. */
export type CollectedReport = (fields: { before_mib: number; after_mib: number; in_use_mib: number; ms: number }) => void;

let timer: NodeJS.Timeout | undefined;
/** What the heap held after our last collection (or when the first call ended). */
let baseline: number | undefined;
let collector: (() => void) | null | undefined;
let report: CollectedReport = () => undefined;

/** Where collections are reported (the agent's log, at debug level). */
export function reportCollections(to: CollectedReport): void {
  report = to;
}

/** One call ended: the quiet wait starts again from now. */
export function callEnded(): void {
  baseline ??= getHeapStatistics().total_heap_size;
  if (timer) {
    timer.refresh();
    return;
  }
  timer = setTimeout(collectIfGrown, QUIET_MS);
  // An agent with nothing else to do may exit; this timer never keeps it alive.
  timer.unref();
}

function collectIfGrown(): void {
  timer = undefined;
  const before = getHeapStatistics().total_heap_size;
  if (before - (baseline ?? before) < GROWTH_BYTES) return;
  collector ??= v8Collector();
  if (!collector) return;
  const started = performance.now();
  collector();
  const ms = Math.round(performance.now() - started);
  const after = getHeapStatistics();
  baseline = after.total_heap_size;
  report({ before_mib: mib(before), after_mib: mib(after.total_heap_size), in_use_mib: mib(after.used_heap_size), ms });
}

/**
 * V8's full collection, or null where this runtime will not hand it out: an ordinary one (`gc()`,
 * full and synchronous on every version), then one with the `gc` extension's options synchronous,
 * major and "last-resort", which compacts and hands the young generation's pages back on V8 12 and
 * later (Node 22+); V8 11 (Node 20) gives those back at its memory reducer's next turn, some 8-20 s
 * after a full collection. The options are built inside the new context: from another context
 * they are not read.
 */
function v8Collector(): (() => void) | null {
  setFlagsFromString('--expose-gc');
  try {
    const collect: unknown = runInNewContext(`typeof gc === 'function' ? () => { gc(); gc({ type: 'major', execution: 'sync', flavor: 'last-resort' }); } : null`);
    return typeof collect === 'function' ? () => void collect() : null;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

function mib(bytes: number): number {
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}
