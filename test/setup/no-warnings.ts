/**
 * A Node warning in a test process fails the test it comes in. The agent's code runs in-process
 * in most of these tests, and a warning it causes (a leak warning of listeners on one signal, a
 * deprecated API) would print into a user's agent log. Node emits a warning on the tick after its
 * cause, so each test's check waits for one turn of the event loop first. Child processes are
 * checked by their helpers (helpers/node-warnings.ts).
 */
import { afterAll, afterEach, expect } from 'vitest';

const warnings: string[] = [];
const onWarning = (warning: Error): void => void warnings.push(`${warning.name}: ${warning.message}`);
process.on('warning', onWarning);
afterAll(() => void process.off('warning', onWarning));

afterEach(async () => {
  await new Promise((resolve) => setImmediate(resolve));
  expect(warnings.splice(0), 'Node warnings while this test ran').toEqual([]);
});
