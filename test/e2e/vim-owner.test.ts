// One process serves the user's Vims, and others leave it alone: with the real `vimrelay agent`
// serving a real Vim through the relay, a `vimrelay serve --stdio` started and stopped (as an MCP
// client does) and a `vimrelay serve --http` that fails on a busy port leave the Vim connected to
// the agent and the address file naming the agent's socket; when the agent stops, its socket and
// address file go with it.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { vimFiles } from '../../agent/editors/vim/rendezvous.ts';
import { CLI, isolatedEnv, runCli, startAgentProcess, type AgentProcess } from '../helpers/agent-process.ts';
import { callOk, connectMcp, connectStdio } from '../helpers/mcp.ts';
import { withRelay, type TestRelay } from '../helpers/relay.ts';
import { startVim, type VimFixture } from '../helpers/vim.ts';
import { waitFor } from '../helpers/wait.ts';

let relay: TestRelay;
let env: NodeJS.ProcessEnv;
let agent: AgentProcess;
let vim: VimFixture;
let client: Client;
let vimId: string;

/** The Vim as the relay lists it, once it is there. */
async function listedVim(): Promise<{ id: string; kind: string }> {
  return waitFor(async () => {
    const editors = (await callOk(client, 'list_editors')).editors as { id: string; kind: string }[];
    return editors.find((e) => e.kind === 'vim');
  }, 20_000, () => `the Vim in list_editors; agent log:\n${agent.output()}`);
}

/** The Vim is still the agent's, on the same channel, and the address is the agent's. */
async function stillTheAgents(): Promise<void> {
  expect((await listedVim()).id).toBe(vimId);
  expect((await callOk(client, 'read_buffer', { editor: vimId })).lines).toEqual(['served by the agent']);
  expect(agent.output()).not.toContain('Vim disconnected');
  const files = vimFiles(env);
  expect(readFileSync(files.address, 'utf8').trim()).toBe(`unix:${files.socket}`);
}

beforeAll(async () => {
  relay = await withRelay();
  env = isolatedEnv({ VIMRELAY_OWNER_SECRET: relay.ownerSecret });
  const sockets = join(String(env.HOME), 'sockets');
  mkdirSync(sockets);
  expect(runCli(['enroll', '--relay', relay.url, '--name', 'owner'], env).status).toBe(0);
  agent = startAgentProcess(['--relay', relay.url, '--discover-dir', sockets], env);
  await agent.waitFor('listening for Vim');
  const cwd = join(String(env.HOME), 'work');
  mkdirSync(cwd);
  vim = startVim(env, cwd, { files: { 'a.txt': 'served by the agent\n' }, open: ['a.txt'] });
  client = await connectMcp(relay.mcpUrl, await relay.mint({ kind: 'access', name: 'owner' }));
  vimId = (await listedVim()).id;
}, 90_000);

afterAll(async () => {
  await client?.close();
  await vim?.stop();
  await agent?.stop();
  await relay?.stop();
});

it('a serve --stdio started and stopped meanwhile leaves the Vim with the agent', async () => {
  const stdio = await connectStdio(process.execPath, [CLI, 'serve', '--stdio'], env);
  // Serve leaves Vims to a running agent (agent/editors/vim/holder.ts), and says so.
  await waitFor(() => (stdio.stderr().includes('vimrelay agent serves Vims, not this serve') ? true : undefined), 10_000, () => `serve to see the agent; stderr:\n${stdio.stderr()}`);
  // It serves no Vim: the agent does.
  const listed = (await callOk(stdio.client, 'list_editors')).editors as { kind: string }[];
  expect(listed.filter((e) => e.kind === 'vim')).toEqual([]);
  await stdio.client.close();
  await stillTheAgents();
});

it('a serve --http that fails on a busy port leaves the Vim with the agent', async () => {
  const busy = new URL(relay.url).port;
  const out = runCli(['serve', '--http', '--port', busy], env);
  expect(out.status).not.toBe(0);
  await stillTheAgents();
});

it('takes its socket and address file away when the agent stops', async () => {
  const files = vimFiles(env);
  await agent.stop();
  expect(existsSync(files.address)).toBe(false);
  expect(existsSync(files.socket)).toBe(false);
});
