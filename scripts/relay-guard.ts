/**
 * Keeps `wrangler dev` (and the workerd it starts) from outliving whoever started it. Run by
 * local-relay.ts as the leader of a process group of its own: `relay-guard.ts <command> <args...>`
 * runs the command in that group, and ends the whole group (SIGTERM, then SIGKILL after a grace)
 * when its stdin closes — the pipe from its parent, which the kernel closes however the parent
 * ends, SIGKILL included —, on SIGTERM, SIGINT or SIGHUP, or when the command exits (workerd may
 * outlive wrangler), this process last. No output of its own beyond one line on stderr (the relay's
 * log) saying why it stopped the group.
 */
import { spawn } from 'node:child_process';

const GRACE_MS = 5_000;
const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  process.stderr.write('usage: relay-guard.ts <command> [args...]\n');
  process.exit(2);
}

const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
let stopping = false;

/** Signals every process of this group, this one included (it handles SIGTERM below; not SIGKILL). */
function signalGroup(signal: NodeJS.Signals): void {
  try {
    process.kill(-process.pid, signal);
  } catch {
    // The group is gone already.
  }
}

function stopGroup(why: string): void {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`relay-guard: ${why}; stopping the relay\n`);
  signalGroup('SIGTERM');
  setTimeout(() => signalGroup('SIGKILL'), GRACE_MS).unref();
}

// The group's SIGTERM reaches this process too: it is handled here, never fatal.
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => stopGroup(`${signal} received`));
process.stdin.on('end', () => stopGroup('the process that started the relay is gone'));
process.stdin.on('error', () => stopGroup('the process that started the relay is gone'));
process.stdin.resume();

child.once('exit', (code, signal) => {
  // What wrangler started may still run (workerd): the whole group goes, this process with it.
  process.stderr.write(`relay-guard: ${command} exited (${signal ?? `code ${code}`}); stopping what it started\n`);
  stopping = true;
  signalGroup('SIGTERM');
  setTimeout(() => signalGroup('SIGKILL'), 1_000);
});
