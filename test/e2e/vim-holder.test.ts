/**
 * Who serves the user's Vims when `vimrelay serve` and the relay's `vimrelay agent` both run
 * (agent/editors/vim/holder.ts), with real processes: a serve started first holds the Vim socket
 * and serves a real Vim; the agent of a test relay starts, says in its log that serve holds the
 * Vims, and serve yields the socket to it, so the relay's list_editors shows the Vim; restarting
 * the agent gives the Vim back to the relay again (serve holds it only while no agent runs).
 * `vimrelay status` and `:VimRelayStatus` say which process serves the Vims, with its pid.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isolatedEnv, runCli, startAgentProcess, type AgentProcess } from '../helpers/agent-process.ts';
import { callOk, connectMcp } from '../helpers/mcp.ts';
import { withRelay, type TestRelay } from '../helpers/relay.ts';
import { startServeHttp, type ServeHttpProcess } from '../helpers/serve-process.ts';
import { startVim, type VimFixture } from '../helpers/vim.ts';
import { waitFor } from '../helpers/wait.ts';

let relay: TestRelay;
let env: NodeJS.ProcessEnv;
let serve: ServeHttpProcess;
let agent: AgentProcess | undefined;
let vim: VimFixture;
let client: Client;

const holder = (): { pid: number; role: string; relay: string | null } => JSON.parse(readFileSync(join(String(env.XDG_STATE_HOME), 'vimrelay', 'vim-holder.json'), 'utf8'));

async function relayListsVim(): Promise<boolean> {
  const { editors } = (await callOk(client, 'list_editors')) as { editors: { kind: string; pid: number }[] };
  return editors.some((e) => e.kind === 'vim' && e.pid === vim.pid);
}

/** What :VimRelayStatus shows in the Vim, through a file (the Vim runs in Ex mode). */
async function vimStatus(): Promise<string> {
  const file = join(String(env.HOME), `status-${Date.now()}.txt`);
  vim.ex(`redir! > ${file} | silent VimRelayStatus | redir END`);
  return waitFor(() => {
    try {
      const text = readFileSync(file, 'utf8');
      return text.includes('vims:') ? text : undefined;
    } catch {
      return undefined;
    }
  }, 10_000, ':VimRelayStatus to be written');
}

beforeAll(async () => {
  relay = await withRelay();
  env = isolatedEnv();
  const enrolled = runCli(['enroll', '--relay', relay.url, '--name', 'vim-holder'], { ...env, VIMRELAY_OWNER_SECRET: relay.ownerSecret });
  if (enrolled.status !== 0) throw new Error(`enroll failed: ${enrolled.stderr}`);
  const none = join(String(env.HOME), 'no-neovims');
  mkdirSync(none);
  serve = await startServeHttp(['--port', '0', '--discover-dir', none], env);
  const cwd = join(String(env.HOME), 'vim-work');
  mkdirSync(cwd);
  vim = startVim(env, cwd, { name: 'held' });
  await waitFor(() => (serve.stderr().includes('Vim connected') ? true : undefined), 10_000, () => `the Vim to connect to serve; serve logged:\n${serve.stderr()}`);
  client = await connectMcp(relay.mcpUrl, await relay.mint({ kind: 'access', name: 'vim-holder' }));
}, 90_000);

afterAll(async () => {
  await client?.close();
  await vim?.stop();
  await agent?.stop();
  await serve?.stop();
  await relay?.stop();
  for (const dir of [env?.HOME, relay?.dir]) if (dir) rmSync(String(dir), { recursive: true, force: true });
});

it('serve alone serves the Vim, and says so', async () => {
  expect(holder()).toEqual({ pid: serve.proc.pid, role: 'serve', relay: null });
  const status = runCli(['status'], env);
  expect(status.stdout).toContain(`vims: served by vimrelay serve (pid ${serve.proc.pid})`);
  expect(await vimStatus()).toContain(`vims: served by serve (pid ${serve.proc.pid})`);
});

it('the relay\'s agent, started later, gets the Vim: its log names serve, and serve yields the socket', async () => {
  const none = join(String(env.HOME), 'no-neovims');
  agent = startAgentProcess(['--relay', relay.url, '--discover-dir', none], env);
  await agent.waitFor('connected to relay');
  await waitFor(async () => ((await relayListsVim()) ? true : undefined), 20_000, () => `the relay to list the Vim; the agent logged:\n${agent?.output()}\nserve:\n${serve.stderr()}`);
  expect(agent.output()).toContain(`vimrelay serve (pid ${serve.proc.pid}) serves Vims, not this agent`);
  expect(serve.stderr()).toContain('handing Vims to the agent of a paired relay');
  expect(holder()).toEqual({ pid: agent.proc.pid, role: 'agent', relay: relay.url });
  expect(runCli(['status'], env).stdout).toContain(`vims: served by the agent of ${relay.url} (pid ${agent.proc.pid})`);
  expect(await vimStatus()).toContain(`vims: served by the agent of ${relay.url} (pid ${agent.proc.pid})`);
});

it('restarting the agent gives the Vim back to the relay, not to serve', async () => {
  await agent?.stop();
  // Meanwhile serve may take the Vims (no agent runs): they are not lost.
  const none = join(String(env.HOME), 'no-neovims');
  agent = startAgentProcess(['--relay', relay.url, '--discover-dir', none], env);
  await agent.waitFor('connected to relay');
  await waitFor(async () => ((await relayListsVim()) ? true : undefined), 20_000, () => `the relay to list the Vim again; the agent logged:\n${agent?.output()}\nserve:\n${serve.stderr()}`);
  expect(holder()).toMatchObject({ pid: agent.proc.pid, role: 'agent' });
});
