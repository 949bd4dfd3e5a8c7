// Loaded by bench/main.ts into the processes whose memory it measures (NODE_OPTIONS `--expose-gc
// --import`), never by vimrelay itself: on SIGUSR2, a full collection, then one line of JSON
// appended to $VIMRELAY_BENCH_GC_OUT with this process's pid and process.memoryUsage() after it.
// What a burst of calls left behind is then what survives a collection, as V8's memory reducer
// leaves it once the process has been idle a while, not the garbage it has not collected yet.
import { appendFileSync } from 'node:fs';

process.on('SIGUSR2', () => {
  globalThis.gc();
  globalThis.gc();
  appendFileSync(process.env.VIMRELAY_BENCH_GC_OUT, `${JSON.stringify({ pid: process.pid, ...process.memoryUsage() })}\n`);
});
