// The agent's life around the relay: credentials, logs and status files kept private (another
// account cannot read them), `vimrelay status` (an editor's directory printed, its escape
// sequences never obeyed), and reconnection after the relay restarts (every deploy drops every
// socket).
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { paths } from '../../agent/config/paths.ts';
import { isolatedEnv, runCli, startAgentProcess, type AgentProcess } from '../helpers/agent-process.ts';
import { callOk, connectMcp } from '../helpers/mcp.ts';
import { startNvim, type NvimFixture } from '../helpers/nvim.ts';
import { asOther, itAsOther } from '../helpers/other-user.ts';
import { withRelay, type TestRelay } from '../helpers/relay.ts';
import { waitFor } from '../helpers/wait.ts';

let relay: TestRelay;
let env: NodeJS.ProcessEnv;
let agent: AgentProcess;
let nvim: NvimFixture;
let token: string;

async function editorCount(client: Client): Promise<number> {
  return (await callOk(client, 'list_editors')).count as number;
}

/** Waits until `probe` holds, failing with the agent's log. */
async function eventually(probe: () => Promise<boolean>, what: string): Promise<void> {
  await waitFor(async () => ((await probe().catch(() => false)) ? true : undefined), 30_000, what).catch((err: unknown) => {
    throw new Error(`${String(err)}; agent log:\n${agent.output()}`);
  });
}

beforeAll(async () => {
  relay = await withRelay();
  env = isolatedEnv({ VIMRELAY_OWNER_SECRET: relay.ownerSecret });
  // As a home another account may enter would be, with a state directory an older version made
  // 0755: only the agent's own modes stand between that account and its files.
  chmodSync(String(env.HOME), 0o755);
  chmodSync(String(env.XDG_STATE_HOME), 0o755);
  mkdirSync(paths(env).stateDir, { mode: 0o755 });
  chmodSync(paths(env).stateDir, 0o755);
  const sockets = join(String(env.HOME), 'sockets');
  mkdirSync(sockets);
  const enrolled = runCli(['enroll', '--relay', relay.url, '--name', 'life'], env);
  expect(enrolled.status, enrolled.stderr).toBe(0);
  agent = startAgentProcess(['--relay', relay.url, '--discover-dir', sockets], env);
  nvim = await startNvim({ files: { 'x.txt': 'x\n' }, open: ['x.txt'], listen: join(sockets, 'nvim.life.0') });
  token = await relay.mint({ kind: 'access', name: 'life' });
}, 90_000);

afterAll(async () => {
  await agent?.stop();
  await nvim?.stop();
  await relay?.stop();
});

it('keeps the device credential private (0600 in a 0700 directory)', () => {
  const p = paths(env);
  expect(statSync(p.credentials).mode & 0o777).toBe(0o600);
  expect(statSync(p.configDir).mode & 0o777).toBe(0o700);
});

it('keeps its logs, status and audit files 0600 in a 0700 state directory, which another account cannot read', async () => {
  await agent.waitFor('connected to relay');
  const client = await connectMcp(relay.mcpUrl, token);
  await eventually(async () => (await editorCount(client)) === 1, 'the editor to be listed');
  await callOk(client, 'read_buffer', {});
  await client.close();
  const dir = paths(env).stateDir;
  await eventually(async () => ['agent.log', 'audit.log', 'status.json'].every((f) => readdirSync(dir).includes(f)), 'the state files');
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  for (const file of readdirSync(dir)) expect([file, statSync(join(dir, file)).mode & 0o777]).toEqual([file, 0o600]);
});

itAsOther('lets no other account read the state files (uid 65534)', () => {
  const dir = paths(env).stateDir;
  // The account can reach the directory's parent: the directory's own mode is what refuses it.
  expect(asOther('ls', [String(env.XDG_STATE_HOME)]).status).toBe(0);
  expect(asOther('ls', [dir]).status).not.toBe(0);
  for (const file of readdirSync(dir)) expect(asOther('cat', [join(dir, file)]).status).not.toBe(0);
});

it('logs under $XDG_STATE_HOME/vimrelay as well as to stderr', async () => {
  await agent.waitFor('connected to relay');
  expect(readFileSync(paths(env).log, 'utf8')).toMatch(/connected to relay/);
});

it('vimrelay status shows the link and the editors', async () => {
  await agent.waitFor('editor online');
  await agent.waitFor('connected to relay');
  await eventually(async () => runCli(['status'], env).stdout.includes(`nvim-${nvim.pid}`), 'status to list the editor');
  const status = runCli(['status'], env);
  expect(status.status).toBe(0);
  expect(status.stdout).toMatch(/^agent: running \(pid \d+\)$/m);
  expect(status.stdout).toMatch(/connected as life/);
});

it('vimrelay status shows an editor in a directory whose name holds escape sequences with them escaped, never sent to the terminal', async () => {
  const evil = join(String(env.HOME), 'repo\x1b]0;pwned\x07\x1b[2J\x1b[1;1H\u202eevil');
  const shownAs = 'repo\\x1b]0;pwned\\x07\\x1b[2J\\x1b[1;1H\\u202eevil';
  mkdirSync(evil);
  const work = await nvim.lua<string>('return vim.fn.getcwd()');
  await nvim.lua('vim.api.nvim_set_current_dir(...)', evil);
  try {
    await eventually(async () => runCli(['status'], env).stdout.includes('pwned'), 'status to show the new directory');
    const status = runCli(['status'], env);
    expect(status.status).toBe(0);
    // Nothing a terminal would act on but the output's own line breaks.
    expect(/[\p{Cc}\p{Cf}]/u.test(status.stdout.replaceAll('\n', ''))).toBe(false);
    // The editor's name is its directory's, and its directory the whole path.
    expect(status.stdout).toContain(`  ${shownAs}  ${join(String(env.HOME), shownAs)}\n`);
  } finally {
    await nvim.lua('vim.api.nvim_set_current_dir(...)', work);
  }
});

it('reconnects after the relay restarts, and its editors come back', async () => {
  const before = await connectMcp(relay.mcpUrl, token);
  await eventually(async () => (await editorCount(before)) === 1, 'the editor to be listed');
  await before.close();

  await relay.restart();
  const after = await connectMcp(relay.mcpUrl, token);
  await eventually(async () => (await editorCount(after)) === 1, 'the editor to be listed again');
  expect(agent.output()).toMatch(/relay link down; reconnecting/);
  expect((await callOk(after, 'read_buffer', {})).lines).toEqual(['x']);
  await after.close();
});

it('lists a Neovim that ran before it started in its hello, slow to answer as it may be: the first list_editors once connected has it', async () => {
  await agent.stop();
  // Busy for 1 s from before the agent starts (inside the agent's 2 s bound on a probe, which
  // starts later): the link to the relay is up long before that, and the hello waits for the probe.
  void nvim.lua('local t = vim.loop.hrtime() while vim.loop.hrtime() - t < 1e9 do end').catch(() => undefined);
  agent = startAgentProcess(['--relay', relay.url, '--discover-dir', join(String(env.HOME), 'sockets')], env);
  await agent.waitFor('connected to relay');
  const client = await connectMcp(relay.mcpUrl, token);
  try {
    expect(await editorCount(client)).toBe(1);
  } finally {
    await client.close();
  }
});

it('vimrelay status says so when no agent runs', async () => {
  await agent.stop();
  const status = runCli(['status'], env);
  expect(status.status).toBe(3);
  expect(status.stdout).toBe('agent: not running\n');
});
