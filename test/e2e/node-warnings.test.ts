// The checks that keep Node's warnings out of the agent's log, proved able to fail: the parser
// finds both forms Node prints (with a code and without) in a real Node's stderr and nothing in a
// clean log, the process helpers' check names each warning, and a warning emitted in a test
// process fails the test it comes in (test/setup/no-warnings.ts).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { assertNoNodeWarnings, nodeWarnings } from '../helpers/node-warnings.ts';

describe('Node warnings', () => {
  it("are found in a real Node's stderr, in both forms, and a clean log has none", () => {
    const { stderr } = spawnSync(process.execPath, ['-e', "process.emitWarning('one', 'DeprecationWarning', 'DEP0999'); process.emitWarning('two'); console.error('a log line with Warning: in it')"], { encoding: 'utf8' });
    expect(nodeWarnings(stderr)).toEqual([expect.stringMatching(/^\(node:\d+\) \[DEP0999\] DeprecationWarning: one$/), expect.stringMatching(/^\(node:\d+\) Warning: two$/)]);
    expect(() => assertNoNodeWarnings(stderr, 'this process')).toThrow(/this process printed Node warnings:\n.*DeprecationWarning: one\n.*Warning: two/);
    expect(() => assertNoNodeWarnings('2026-12-04T00:00:00.000Z info  connected to relay {"device":"vm"}\n', 'the agent')).not.toThrow();
  });

  it.fails('emitted in a test, fail that test', async () => {
    process.emitWarning('a warning this test means to fail on');
  });
});
