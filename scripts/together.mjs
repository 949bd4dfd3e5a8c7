#!/usr/bin/env node
// `node scripts/together.mjs NAME...`: runs the npm scripts NAME... at once, each printing as it
// goes, and fails when any fails (naming it) once all have ended. `npm run check` runs the type
// check, lint and the build this way: each is one process on one core, and one after the other
// they took about 50 s of a CI run. Plain JavaScript, so that it needs nothing but Node.
import { spawn } from 'node:child_process';

const names = process.argv.slice(2);
const ended = await Promise.all(
  names.map(
    (name) =>
      new Promise((resolve) => {
        const child = spawn('npm', ['run', '--silent', name], { stdio: 'inherit' });
        child.on('error', () => resolve({ name, ok: false }));
        child.on('exit', (code) => resolve({ name, ok: code === 0 }));
      }),
  ),
);
const failed = ended.filter((run) => !run.ok).map((run) => run.name);
if (failed.length > 0) {
  process.stderr.write(`failed: ${failed.join(', ')}\n`);
  process.exit(1);
}
