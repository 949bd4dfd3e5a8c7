// The local relay cannot outlive its launcher: a launcher killed outright (SIGKILL, no cleanup)
// takes the relay's process group with it, because the relay's process stops when its stdin, held
// by the launcher, closes (scripts/relay-process.ts). And it runs one workerd: no proxy worker in
// front of the Worker, as wrangler dev has.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ROOT } from '../../scripts/local-relay.ts';
import { groupPids } from '../helpers/procs.ts';
import { waitFor } from '../helpers/wait.ts';

const dir = mkdtempSync(join(tmpdir(), 'vimrelay-life-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether any process is in process group `pgid`. */
function groupAlive(pgid: number): boolean {
  return groupPids(pgid).length > 0;
}

// A launcher that starts the relay, prints its URL and process group, and waits to be killed.
const LAUNCHER = `
import { startLocalRelay } from ${JSON.stringify(join(ROOT, 'scripts', 'local-relay.ts'))};
const relay = await startLocalRelay({ persistTo: ${JSON.stringify(join(dir, 'state'))}, logFile: ${JSON.stringify(join(dir, 'relay.log'))}, vars: { OWNER_SECRET: 'x' } });
console.log(JSON.stringify({ url: relay.url, pgid: relay.process.pid }));
setInterval(() => {}, 1000);
`;

it('runs one workerd, and a launcher killed with SIGKILL leaves no relay running', async () => {
  const launcher = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', LAUNCHER], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  launcher.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  const started = await waitFor(async () => (out.includes('\n') ? (JSON.parse(out) as { url: string; pgid: number }) : undefined), 60_000, () => `the launcher to start the relay; it wrote ${out}`);
  expect((await fetch(`${started.url}/health`)).status).toBe(200);
  const workerds = groupPids(started.pgid).filter((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'workerd');
  expect(workerds).toHaveLength(1);
  launcher.kill('SIGKILL');
  await waitFor(async () => (groupAlive(started.pgid) ? undefined : true), 30_000, 'the relay to stop with its launcher').catch(() => {});
  expect(groupAlive(started.pgid)).toBe(false);
  await expect(fetch(`${started.url}/health`)).rejects.toThrow();
});
