// The agent's logger never throws: a line its file cannot take (here the file's directory gone,
// as EMFILE or a full disk would refuse it) still reaches stderr, the failure is said once, and
// the file, once it takes lines again, says how many it missed. (`serve --http` out of
// descriptors, end to end: e2e/local-flood.test.ts.)
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { createLogger } from '../../agent/log.ts';
import { tempDir } from '../helpers/temp.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

it('goes on without its file, says so once, and tells the file what it missed', () => {
  const dir = join(tempDir('vimrelay-log-'), 'state');
  mkdirSync(dir);
  const file = join(dir, 'agent.log');
  const stderr: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  });
  const logger = createLogger({ file });

  logger.info('one');
  rmSync(dir, { recursive: true });
  expect(() => logger.info('two')).not.toThrow();
  expect(() => logger.error('three')).not.toThrow();
  mkdirSync(dir);
  logger.info('four');

  const lines = stderr.join('').split('\n');
  expect(lines.filter((l) => l.includes('cannot write the log file'))).toEqual([expect.stringMatching(/cannot write the log file .*agent\.log \(ENOENT\)/)]);
  for (const word of ['one', 'two', 'three', 'four']) expect(lines.some((l) => l.endsWith(` ${word}`))).toBe(true);
  const kept = readFileSync(file, 'utf8').split('\n');
  expect(kept).toEqual([expect.stringMatching(/warn {2}2 line\(s\) before this one could not be written to this file$/), expect.stringMatching(/info {2}four$/), '']);
});
