/**
 * An idle agent on a busy shared machine, for bench/main.ts: `vimrelay agent` with default
 * discovery, its temporary directory holding about a thousand entries of the kinds a real /tmp
 * holds, measured from 10 s after it starts (the first seconds are its start), beside an idle Node
 * process with one timer, started with it and measured over the same windows (the baseline: what
 * any idle Node costs here). When the bench runs as root, the agent runs as a second account (uid
 * 65534), so that the private directories of others in that temporary directory (root's
 * `nvim.root`, `systemd-private-*`) are closed to it, as they are to a user on a shared machine.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, isolatedEnv } from '../test/helpers/agent-process.ts';
import { OTHER_UID, OTHER_USER_SKIP } from '../test/helpers/other-user.ts';

/** The account the idle agent runs as: the second one when the bench may use it, else this one. */
const AS_OTHER = OTHER_USER_SKIP === null;

/** `command args` run as the idle agent's account (setpriv when that is the second one). */
function argv(command: string, args: readonly string[]): [string, string[]] {
  return AS_OTHER ? ['setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', command, ...args]] : [command, [...args]];
}

/**
 * A temporary directory as a busy shared machine has it, about a thousand entries: logs and
 * temporary files, other programs' directories a few levels deep, homes of test runs holding a
 * Neovim 0.7 temporary directory (`nvimXXXXXX`), sockets whose processes are gone, Neovim sockets
 * of editors that crashed, a compile cache of 800 files, and other accounts' private directories
 * (an `nvim.<user>` socket directory, `systemd-private-*`): closed to the agent's account.
 */
export function busyTempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vimrelay-busy-tmp-'));
  chmodSync(dir, 0o1777);
  for (let i = 0; i < 420; i++) writeFileSync(join(dir, i % 3 ? `build-${i}.log` : `tmp${i}.tmp`), 'x'.repeat(i % 7));
  for (let i = 0; i < 160; i++) {
    mkdirSync(join(dir, `app-${i}`, 'cache', 'v1'), { recursive: true });
    writeFileSync(join(dir, `app-${i}`, 'state.json'), '{}');
    writeFileSync(join(dir, `app-${i}`, 'cache', 'v1', 'blob'), 'y');
  }
  for (let i = 0; i < 120; i++) {
    for (const sub of ['run', 'work', 'config']) mkdirSync(join(dir, `test-home-${i}`, sub), { recursive: true });
    mkdirSync(join(dir, `test-home-${i}`, 'tmp', `nvim${String(100000 + i)}`), { recursive: true });
  }
  const cache = join(dir, 'tsx-0');
  mkdirSync(cache);
  for (let i = 0; i < 800; i++) writeFileSync(join(cache, `m${i}.mjs`), '');
  // Sockets left by processes that are gone, crashed Neovims' among them.
  const stale = [...Array.from({ length: 40 }, (_, i) => join(dir, `ssh-${i}`, `agent.${1000 + i}`)), ...Array.from({ length: 12 }, (_, i) => join(dir, `nvimDead${i}`, '0'))];
  for (const path of stale) mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  const listener = spawnSync(process.execPath, ['-e', `const net = require('node:net'); for (const p of ${JSON.stringify(stale)}) net.createServer().listen(p); setTimeout(() => process.kill(process.pid, 'SIGKILL'), 500);`]);
  if (listener.signal !== 'SIGKILL') throw new Error('could not leave stale sockets behind');
  if (AS_OTHER) for (const path of stale) chownSync(join(path, '..'), OTHER_UID, OTHER_UID);
  // Other accounts' private directories: root's when the agent is the second account; when it is
  // this one, a directory of its own it cannot read either (mode 0).
  for (const name of ['nvim.root', 'systemd-private-1-chrony.service-x', 'systemd-private-1-upower.service-y']) mkdirSync(join(dir, name), { mode: AS_OTHER ? 0o700 : 0 });
  for (let i = 0; readdirSync(dir).length < 1_000; i++) writeFileSync(join(dir, `sess_${i}`), '');
  return dir;
}

/** A started idle agent and its baseline process, both to be stopped with `stop`. */
export interface IdleAgent {
  readonly agent: ChildProcess;
  readonly baseline: ChildProcess;
  /** When both were started (epoch ms). */
  readonly startedAt: number;
  /** Resolves once the agent says it is connected to the relay. */
  readonly connected: Promise<void>;
  stop(): Promise<void>;
}

/** Enrolls a device and starts an idle agent with default discovery and `tmp` as its TMPDIR, and the baseline. */
export function startIdleAgent(relayUrl: string, ownerSecret: string, tmp: string): IdleAgent {
  const env = isolatedEnv({ VIMRELAY_OWNER_SECRET: ownerSecret, TMPDIR: tmp });
  const home = String(env.HOME);
  if (AS_OTHER) spawnSync('chown', ['-R', `${OTHER_UID}:${OTHER_UID}`, home]);
  const [enrollCommand, enrollArgs] = argv(process.execPath, [CLI, 'enroll', '--relay', relayUrl, '--name', `bench-idle-${Date.now()}`]);
  const enrolled = spawnSync(enrollCommand, enrollArgs, { env, encoding: 'utf8', cwd: '/' });
  if (enrolled.status !== 0) throw new Error(`enroll failed: ${enrolled.stderr}`);
  const [agentCommand, agentArgs] = argv(process.execPath, [CLI, 'agent', '--relay', relayUrl]);
  const [baseCommand, baseArgs] = argv(process.execPath, ['-e', 'setInterval(() => {}, 500)']);
  const startedAt = Date.now();
  const agent = spawn(agentCommand, agentArgs, { env, cwd: '/', stdio: ['ignore', 'ignore', 'pipe'] });
  const baseline = spawn(baseCommand, baseArgs, { env, cwd: '/', stdio: 'ignore' });
  let log = '';
  const connected = new Promise<void>((resolve, reject) => {
    agent.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      log += chunk;
      if (log.includes('connected to relay')) resolve();
    });
    agent.once('exit', () => reject(new Error(`the idle agent exited:\n${log}`)));
  });
  connected.catch(() => undefined);
  return {
    agent,
    baseline,
    startedAt,
    connected,
    async stop() {
      for (const child of [agent, baseline]) {
        if (child.exitCode !== null || child.signalCode !== null) continue;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}
