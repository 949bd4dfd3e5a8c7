/** `onPath`: where a program is on a PATH, as the shell finds it; no test runner needed (global set-ups use it). */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The path of `program` in the directories of `path` (PATH's form), or undefined. */
export function onPath(program: string, path: string): string | undefined {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const file = join(dir, program);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}
