// One relay per state directory, and a connected agent's editors whatever happens to the stored
// rows, against a real relay in local workerd with the real agent and a real Neovim:
// - a second relay on the same `--persist-to` (another port) is refused before it starts, naming
//   the first by its port, which goes on serving; a lock left by a relay that is gone is taken over;
// - the Hub's `editors` rows deleted from its SQLite by another process (what a second relay on the
//   same storage did as it started): the next call succeeds all the same, the Hub having asked the
//   agent for its list again; before, every call answered NO_EDITOR from then on.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort, startLocalRelay, StateInUse } from '../../scripts/local-relay.ts';
import { LOCK_FILE } from '../../scripts/state-lock.ts';
import { isolatedEnv, runCli, startAgentProcess, type AgentProcess } from '../helpers/agent-process.ts';
import { callOk, connectMcp } from '../helpers/mcp.ts';
import { startNvim, type NvimFixture } from '../helpers/nvim.ts';
import { withRelay, type TestRelay } from '../helpers/relay.ts';
import { tempDir } from '../helpers/temp.ts';
import { waitFor } from '../helpers/wait.ts';

let relay: TestRelay;
let agent: AgentProcess;
let nvim: NvimFixture;
let client: Client;

beforeAll(async () => {
  relay = await withRelay();
  const env = isolatedEnv({ VIMRELAY_OWNER_SECRET: relay.ownerSecret });
  const sockets = join(String(env.HOME), 'sockets');
  mkdirSync(sockets);
  const enrolled = runCli(['enroll', '--relay', relay.url, '--name', 'shared'], env);
  expect(enrolled.status, enrolled.stderr).toBe(0);
  agent = startAgentProcess(['--relay', relay.url, '--discover-dir', sockets], env);
  nvim = await startNvim({ files: { 'x.txt': 'the first relay\'s editor\n' }, open: ['x.txt'], listen: join(sockets, 'nvim.shared.0') });
  client = await connectMcp(relay.mcpUrl, await relay.mint({ kind: 'access', name: 'shared' }));
  await waitFor(async () => ((await callOk(client, 'list_editors')).count as number) || undefined, 30_000, 'the editor to be listed');
}, 90_000);

afterAll(async () => {
  await client?.close();
  await agent?.stop();
  await nvim?.stop();
  await relay?.stop();
});

it('a second relay on the same state directory is refused, naming the first, which goes on serving', async () => {
  const state = join(relay.dir, 'state');
  const port = Number(new URL(relay.url).port);
  const second = startLocalRelay({ port: await freePort(), persistTo: state, logFile: join(relay.dir, 'second.log'), vars: { OWNER_SECRET: relay.ownerSecret } });
  await expect(second).rejects.toBeInstanceOf(StateInUse);
  await expect(second).rejects.toThrow(new RegExp(`state directory ${state} is in use by the vimrelay relay on port ${port}`));
  expect((await callOk(client, 'read_buffer', {})).lines).toEqual(['the first relay\'s editor']);
});

it('a lock left by a relay that is gone is taken over, and given up when the relay stops', async () => {
  const state = join(tempDir('vimrelay-stale-'), 'state');
  mkdirSync(state, { recursive: true });
  const gone = spawnSync('true').pid ?? 0;
  writeFileSync(join(state, LOCK_FILE), `${JSON.stringify({ pid: gone, port: 1 })}\n`);
  const port = await freePort();
  const started = await startLocalRelay({ port, persistTo: state, logFile: join(state, '..', 'relay.log'), vars: { OWNER_SECRET: 'x' } });
  try {
    expect(JSON.parse(readFileSync(join(state, LOCK_FILE), 'utf8'))).toEqual({ pid: started.process.pid, port });
  } finally {
    await started.stop();
  }
  expect(readdirSync(state)).not.toContain(LOCK_FILE);
}, 90_000);

it('the editors rows deleted under the Hub by another process: the next call succeeds, the agent asked for its list again', async () => {
  const hubDir = join(relay.dir, 'state', 'v3', 'do', 'vimrelay-Hub');
  const database = readdirSync(hubDir).find((f) => f.endsWith('.sqlite') && f !== 'metadata.sqlite');
  expect(database).toBeDefined();
  const deleted = spawnSync('python3', ['-c', 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); n = c.execute("DELETE FROM editors").rowcount; c.commit(); print(n)', join(hubDir, database ?? '')], { encoding: 'utf8' });
  expect(deleted.stdout.trim(), deleted.stderr).toBe('1');
  expect((await callOk(client, 'read_buffer', {})).lines).toEqual(['the first relay\'s editor']);
  expect((await callOk(client, 'list_editors')).count).toBe(1);
  expect(agent.output()).toMatch(/the relay asked for this machine's editors again/);
});
