// A device credential in other hands, end to end: the relay in local workerd, the user's
// `vimrelay agent` with a real Neovim, the MCP SDK client, and a thief running the real
// `vimrelay agent` in a home of its own with the user's credentials.json copied in (so with
// another takeover key). The attack that worked: the thief connected as the device, the user's
// agent stopped for good, and the next write_buffer reached the thief.
//   - While the user's agent runs, the thief is refused (exit 5, saying why) and the user's agent
//     stays connected and serves reads and writes; the refusal is in its log, `vimrelay status`
//     and the dashboard's device list (time and address).
//   - A restart of the user's agent takes over at once; the replaced one says by whom.
//   - A thief that connected while the user's agent was away is pushed out when it comes back
//     (the device's first key; the user's agent warns of it), and is then refused.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paths } from '../../agent/config/paths.ts';
import { isolatedEnv, runCli, startAgentProcess, type AgentProcess } from '../helpers/agent-process.ts';
import { callOk, connectMcp } from '../helpers/mcp.ts';
import { startNvim, type NvimFixture } from '../helpers/nvim.ts';
import { ownerBasic, withRelay, type TestRelay } from '../helpers/relay.ts';
import { waitFor } from '../helpers/wait.ts';

const DEVICE = 'victim';

let relay: TestRelay;
let nvim: NvimFixture;
let client: Client;
/** The user's home, and the thief's, which holds a copy of the user's credentials.json. */
let user: NodeJS.ProcessEnv;
let thief: NodeJS.ProcessEnv;
let userArgs: string[];
let thiefArgs: string[];
/** The user's running agent (replaced by the restart test). */
let agent: AgentProcess;
const started: AgentProcess[] = [];

function start(args: string[], env: NodeJS.ProcessEnv): AgentProcess {
  const proc = startAgentProcess(args, env);
  started.push(proc);
  return proc;
}

/** Which of `a` and `b` exits first, with its code. */
function firstExit(a: AgentProcess, b: AgentProcess): Promise<{ who: AgentProcess; code: number | null }> {
  return Promise.race([a.exited.then((code) => ({ who: a, code })), b.exited.then((code) => ({ who: b, code }))]);
}

beforeAll(async () => {
  relay = await withRelay();
  user = isolatedEnv();
  const sockets = join(String(user.HOME), 'sockets');
  mkdirSync(sockets);
  nvim = await startNvim({ files: { 'notes.md': 'mine\n' }, open: ['notes.md'], listen: join(sockets, 'nvim.victim.0') });
  const enrolled = runCli(['enroll', '--relay', relay.url, '--name', DEVICE], { ...user, VIMRELAY_OWNER_SECRET: relay.ownerSecret });
  if (enrolled.status !== 0) throw new Error(`enroll failed: ${enrolled.stderr}`);
  userArgs = ['--relay', relay.url, '--discover-dir', sockets];
  agent = start(userArgs, user);
  await agent.waitFor('connected to relay');

  thief = isolatedEnv();
  copyFileSync(paths(user).credentials, paths(thief).credentials);
  const nothing = join(String(thief.HOME), 'sockets');
  mkdirSync(nothing);
  thiefArgs = ['--relay', relay.url, '--discover-dir', nothing];
  client = await connectMcp(relay.mcpUrl, await relay.mint({ kind: 'access', name: 'takeover' }));
  await waitFor(async () => (((await callOk(client, 'list_editors')).editors as unknown[]).length === 1 ? true : undefined), 20_000, 'the editor to be listed');
}, 90_000);

afterAll(async () => {
  await client?.close();
  for (const p of started) await p.stop();
  await nvim?.stop();
  await relay?.stop();
});

describe('a stolen device credential', () => {
  it('is refused while the user\'s agent runs, which stays and serves; the refusal is in its log, its status and the dashboard', async () => {
    const attacker = start(thiefArgs, thief);
    const exit = await firstExit(attacker, agent);
    expect(exit.who === attacker ? 'the thief' : 'the user\'s agent').toBe('the thief');
    expect(exit.code).toBe(5);
    expect(attacker.output()).toMatch(/another agent is connected to the relay as this device, and this one could not prove it is that agent/);

    await agent.waitFor(/a connection as device "victim" from \S+ was refused: it had this device's credential but could not prove it is this agent/);
    expect(agent.output().match(/connected to relay/g)).toHaveLength(1);
    const read = await callOk(client, 'read_buffer', {});
    expect(read.lines).toEqual(['mine']);
    await callOk(client, 'write_buffer', { buffer: 'notes.md', text: 'still mine\n', expected_changedtick: read.changedtick });
    expect(await nvim.lua('return vim.api.nvim_buf_get_lines(0, 0, -1, true)')).toEqual(['still mine']);

    const status = runCli(['status'], user);
    expect(status.stdout).toContain(`agent: running (pid ${agent.proc.pid})`);
    expect(status.stdout).toMatch(/warning \(\d{4}-.+Z\): a connection as device "victim" from \S+ was refused/);
    const page = await (await fetch(`${relay.url}/dashboard`, { headers: { Authorization: ownerBasic(relay.ownerSecret) } })).text();
    expect(page).toMatch(/connection refused<\/small> <span title="[^"]+">[^<]+<\/span> <small>from [0-9a-f.:]+: it had this device's credential/);
    const devices = runCli(['devices', '--relay', relay.url], { ...user, VIMRELAY_OWNER_SECRET: relay.ownerSecret });
    expect(devices.stdout).toMatch(/victim\s+\S+\s+online\s+\S+ \S+\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ from [0-9a-f.:]+$/m);
  }, 60_000);

  it('a restart of the user\'s agent takes over at once, and the replaced one says by whom', async () => {
    const restarted = start(userArgs, user);
    await restarted.waitFor('connected to relay');
    expect(await agent.exited).toBe(4);
    expect(agent.output()).toMatch(/replaced this one \(the relay said: replaced by a newer connection of this same agent from \S+\)/);
    // The line after "connected to relay", written separately: it may reach this process a read later.
    await restarted.waitFor('took the device over from an earlier connection of this agent (a restart)');
    agent = restarted;
    await waitFor(async () => (((await callOk(client, 'list_editors')).editors as unknown[]).length === 1 ? true : undefined), 20_000, 'the editor to be listed again');
    expect((await callOk(client, 'read_buffer', {})).lines).toEqual(['still mine']);
  }, 60_000);

  it('a thief that connected while the user\'s agent was away is pushed out when it comes back, then refused', async () => {
    await agent.stop();
    const squatter = start(thiefArgs, thief);
    await squatter.waitFor('connected to relay');
    const back = start(userArgs, user);
    await back.waitFor('connected to relay');
    expect(await squatter.exited).toBe(4);
    expect(squatter.output()).toMatch(/the relay said: replaced by the device's first agent \(its key\) from \S+/);
    expect(runCli(['status'], thief).stdout).toMatch(/^agent: not running \(replaced at /);
    await back.waitFor(/took device "victim" over from a connection from \S+, live since \S+, that did not prove this agent's key/);
    expect(runCli(['status'], user).stdout).toMatch(/warning \(.+\): took device "victim" over from a connection/);
    agent = back;

    const again = start(thiefArgs, thief);
    expect(await again.exited).toBe(5);
    await waitFor(async () => (((await callOk(client, 'list_editors')).editors as unknown[]).length === 1 ? true : undefined), 20_000, 'the user\'s editor to be listed');
    expect((await callOk(client, 'read_buffer', {})).lines).toEqual(['still mine']);
  }, 60_000);
});
