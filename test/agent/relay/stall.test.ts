// StallWatch (agent/relay/stall.ts) on a fake clock: no stall while the ticks come on time; a late
// tick measures the stall, which counts for what happens during it and for one tick after it, unless
// that could only start waiting after the stall (a socket opened since); the total adds every stall
// up, the one going on included.
import { describe, expect, it } from 'vitest';
import { StallWatch } from '../../../agent/relay/stall.ts';

describe('StallWatch', () => {
  it('measures how long the process did not run', () => {
    let now = 1_000_000;
    const watch = new StallWatch({ tickMs: 500, now: () => now });
    for (let i = 0; i < 4; i++) {
      now += 500;
      watch.tick();
    }
    expect(watch.stalledMs()).toBe(0);
    expect(watch.totalMs()).toBe(0);
    // Stopped for 8 s: a message read before the next tick may have waited all of it.
    now += 8_500;
    expect(watch.stalledMs()).toBe(8_000);
    expect(watch.totalMs()).toBe(8_000);
    // The late tick runs first: the stall still counts for what comes within a tick of it.
    watch.tick();
    expect(watch.stalledMs()).toBe(8_000);
    now += 499;
    expect(watch.stalledMs()).toBe(8_000);
    now += 1;
    watch.tick();
    expect(watch.stalledMs()).toBe(0);
    expect(watch.totalMs()).toBe(8_000);
    // Something that could only start waiting after the stall ended (a socket opened since) did not wait through it.
    now += 8_500;
    watch.tick();
    expect(watch.stalledMs()).toBe(8_000);
    expect(watch.stalledMs(now)).toBe(0);
    expect(watch.totalMs()).toBe(16_000);
    now += 500;
    watch.tick();
    // A tick a little late (under two periods) is no stall.
    now += 900;
    watch.tick();
    expect(watch.stalledMs()).toBe(0);
    expect(watch.totalMs()).toBe(16_000);
  });
});
