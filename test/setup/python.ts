/**
 * The Python the language servers run, without a version manager's shim in the way. pyright asks
 * `python3` for its search paths at every start; when `python3` on PATH is a script (pyenv's shim: a
 * bash script that works out which interpreter to run, about 0.7 s of CPU per pyright start, 110
 * starts in a CI run), the interpreter it runs is linked, as `python3` and `python`, into a
 * directory of the run's own put first on PATH. The same interpreter either way; the run says so.
 * A vitest global set-up, after machine.ts: the test processes inherit its PATH.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { onPath } from '../helpers/on-path.ts';

/** Whether `file` starts with `#!`: a script, not the interpreter itself. */
function isScript(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head.toString('latin1') === '#!';
  } finally {
    closeSync(fd);
  }
}

export default function setup(): void {
  const found = onPath('python3', process.env.PATH ?? '');
  if (!found || !isScript(realpathSync(found))) return;
  let interpreter: string;
  try {
    interpreter = execFileSync(found, ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
  } catch {
    return;
  }
  if (!interpreter || isScript(realpathSync(interpreter))) return;
  const dir = mkdtempSync(join(tmpdir(), 'vimrelay-python-'));
  for (const name of ['python3', 'python']) symlinkSync(interpreter, join(dir, name));
  process.env.PATH = [dir, process.env.PATH ?? ''].join(delimiter);
  process.stderr.write(`for the tests: python3 on PATH (${found}) is a script; its interpreter ${interpreter} comes first on PATH instead\n`);
}
