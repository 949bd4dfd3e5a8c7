// The relay link when things go wrong, with real processes: the relay in local workerd, `vimrelay agent`
// processes, a real Neovim and the MCP SDK client.
//   - A frozen agent (SIGSTOP): the Hub misses its heartbeats, a call answers EDITOR_OFFLINE well
//     before the configured deadline, list_editors drops it and NO_EDITOR says it is reconnecting;
//     an edit refused meanwhile is never applied after SIGCONT, and the agent comes back.
//   - Two agents for one device: a restart (the same state directory, so the same takeover key)
//     wins at once, the older exits (code 4) saying by whom, and `vimrelay status` shows the one
//     that runs; an agent keeping its state elsewhere (another key) is refused while one runs and
//     exits, 0 as a service, the running one warned and serving on; a service replaced in turn exits 0.
//   - A long outage: the relay down long enough for the backoff to grow past the 5 s bound, then
//     up: the agent's log shows the scheduled delay, the probe that found the relay back, and the
//     reconnection it started (the schedule, not wall time); "link down" lines say ECONNREFUSED.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../protocol/index.ts';
import { isolatedEnv, runCli, startAgentProcess, type AgentProcess } from '../helpers/agent-process.ts';
import { callErr, callOk, connectMcp } from '../helpers/mcp.ts';
import { startNvim, type NvimFixture } from '../helpers/nvim.ts';
import { withRelay, type TestRelay } from '../helpers/relay.ts';
import { waitFor } from '../helpers/wait.ts';

/** The editors list_editors shows (ids), whatever the result. */
async function listed(client: Client): Promise<string[]> {
  return ((await callOk(client, 'list_editors')).editors as { id: string }[]).map((e) => e.id);
}

/** An enrolled device in an isolated home with a Neovim in its discovery directory. */
async function machine(relay: TestRelay, name: string): Promise<{ env: NodeJS.ProcessEnv; sockets: string; nvim: NvimFixture }> {
  const env = isolatedEnv({ VIMRELAY_OWNER_SECRET: relay.ownerSecret });
  const sockets = join(String(env.HOME), 'sockets');
  mkdirSync(sockets);
  const enrolled = runCli(['enroll', '--relay', relay.url, '--name', name], env);
  if (enrolled.status !== 0) throw new Error(`enroll failed: ${enrolled.stderr}`);
  const nvim = await startNvim({ files: { 'a.txt': 'alpha\n' }, open: ['a.txt'], listen: join(sockets, `nvim.${name}.0`) });
  return { env, sockets, nvim };
}

describe('a frozen agent', () => {
  let relay: TestRelay;
  let nvim: NvimFixture;
  let agent: AgentProcess;
  let client: Client;
  beforeAll(async () => {
    relay = await withRelay();
    const m = await machine(relay, 'frozen');
    nvim = m.nvim;
    agent = startAgentProcess(['--relay', relay.url, '--discover-dir', m.sockets], m.env);
    await agent.waitFor('connected to relay');
    client = await connectMcp(relay.mcpUrl, await relay.mint({ kind: 'access', name: 'frozen' }));
    await waitFor(async () => ((await listed(client)).length === 1 ? true : undefined), 20_000, 'the editor to be listed');
  }, 90_000);
  afterAll(async () => {
    if (agent) process.kill(agent.proc.pid!, 'SIGCONT');
    await client?.close();
    await agent?.stop();
    await nvim?.stop();
    await relay?.stop();
  });

  it('is dropped by the Hub: EDITOR_OFFLINE before the deadline, not listed, and nothing it was asked runs after SIGCONT', async () => {
    const [editor] = await listed(client);
    const { changedtick } = await callOk(client, 'read_buffer', {});
    process.kill(agent.proc.pid!, 'SIGSTOP');
    try {
      const refused = await callErr(client, 'find_and_replace', { old_text: 'alpha', new_text: 'applied while frozen', expected_changedtick: changedtick });
      expect(refused.code).toBe('EDITOR_OFFLINE');
      // The heartbeat's answer, not the deadline's (that one says TIMEOUT).
      expect(refused.message).toMatch(/stopped answering heartbeats/);
      expect(await listed(client)).toEqual([]);
      const none = await callErr(client, 'read_buffer', { editor });
      expect(none).toMatchObject({ code: 'EDITOR_OFFLINE', message: expect.stringContaining('is reconnecting') });
    } finally {
      process.kill(agent.proc.pid!, 'SIGCONT');
    }
    await waitFor(async () => ((await listed(client)).length === 1 ? true : undefined), 30_000, 'the editor to be listed again');
    expect((await callOk(client, 'read_buffer', {})).lines).toEqual(['alpha']);
    // The edit refused while it was frozen was not run after SIGCONT: the agent saw its own stall
    // (and dropped the link, or the call that waited through it).
    expect(agent.output()).toMatch(/this agent was not running long enough|a call waited while this agent was not running/);
    expect(await nvim.lua('return vim.api.nvim_buf_get_lines(0, 0, -1, true)')).toEqual(['alpha']);
  }, 90_000);
});

describe('two agents for one device', () => {
  let relay: TestRelay;
  let nvim: NvimFixture;
  const agents: AgentProcess[] = [];
  beforeAll(async () => {
    relay = await withRelay();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(agents.map((a) => a.stop()));
    await nvim?.stop();
    await relay?.stop();
  });

  it('a restart wins and the older exits saying by whom; an agent with another state directory is refused while one runs; a service replaced exits 0', async () => {
    const m = await machine(relay, 'twice');
    nvim = m.nvim;
    const args = ['--relay', relay.url, '--discover-dir', m.sockets];
    const first = startAgentProcess(args, m.env);
    agents.push(first);
    await first.waitFor('connected to relay');

    // A second terminal, same user and files: the same takeover key.
    const second = startAgentProcess(args, m.env);
    agents.push(second);
    await second.waitFor('connected to relay');
    expect(await first.exited).toBe(4);
    expect(first.output()).toMatch(/replaced this one \(the relay said: replaced by a newer connection of this same agent from \S+\)/);
    // Its own write, right after "connected to relay": it may reach the test a read later.
    await second.waitFor('took the device over from an earlier connection of this agent (a restart)');
    const status = runCli(['status'], m.env);
    expect(status.stdout).toContain(`agent: running (pid ${second.proc.pid})`);

    const client = await connectMcp(relay.mcpUrl, await relay.mint({ kind: 'access', name: 'twice' }));
    await waitFor(async () => ((await listed(client)).length === 1 ? true : undefined), 20_000, 'the editor to be listed');
    expect((await callOk(client, 'read_buffer', {})).lines).toEqual(['alpha']);

    // A third keeping its state elsewhere (a service set up with another XDG_STATE_HOME, say) has
    // another takeover key: refused while the second runs. As a service it exits 0, so that its
    // manager does not start it again to knock forever.
    const elsewhere = { ...m.env, XDG_STATE_HOME: join(String(m.env.HOME), 'service-state') };
    mkdirSync(String(elsewhere.XDG_STATE_HOME));
    const third = startAgentProcess([...args, '--service'], elsewhere);
    agents.push(third);
    expect(await third.exited).toBe(0);
    expect(third.output()).toMatch(/another agent is connected to the relay as this device, and this one could not prove it is that agent/);
    expect(runCli(['status'], elsewhere).stdout).toMatch(/^agent: not running \(refused at /);
    await second.waitFor(/a connection as device "twice" from \S+ was refused/);
    expect(runCli(['status'], m.env).stdout).toMatch(/warning \(.+\): a connection as device "twice" from \S+ was refused/);
    expect(second.output().match(/connected to relay/g)).toHaveLength(1);
    expect((await callOk(client, 'read_buffer', {})).lines).toEqual(['alpha']);
    await client.close();

    // The login service's agent replaced in turn exits 0, so that its service manager (restart on
    // failure) leaves it stopped instead of starting it again to push the newer one out.
    const service = startAgentProcess([...args, '--service'], m.env);
    agents.push(service);
    await service.waitFor('connected to relay');
    expect(await second.exited).toBe(4);
    const fifth = startAgentProcess(args, m.env);
    agents.push(fifth);
    await fifth.waitFor('connected to relay');
    expect(await service.exited).toBe(0);
    expect(service.output()).toMatch(/replaced this one/);
  }, 90_000);
});

describe('a long outage', () => {
  let relay: TestRelay;
  let nvim: NvimFixture;
  let agent: AgentProcess;
  beforeAll(async () => {
    relay = await withRelay();
    const m = await machine(relay, 'outage');
    nvim = m.nvim;
    agent = startAgentProcess(['--relay', relay.url, '--discover-dir', m.sockets], m.env);
    await agent.waitFor('connected to relay');
  }, 60_000);
  afterAll(async () => {
    await agent?.stop();
    await nvim?.stop();
    await relay?.stop();
  });

  it('reconnects at the first health probe that finds the relay back, not when the grown backoff ends', async () => {
    await relay.down();
    // Down until a retry is scheduled far past the 5 s the agent has to be back in: 15 s leaves the
    // relay ample time to start again before that wait would end by itself.
    const long = await waitFor(() => {
      for (const m of agent.output().matchAll(/relay link down; reconnecting (\{.*\})$/gm)) {
        const fields = JSON.parse(m[1] ?? '{}') as { in_ms: number; probing_every_ms?: number; why: string };
        if (fields.in_ms > 15_000) return { fields, at: m.index };
      }
      return undefined;
    }, 150_000, 'a retry scheduled more than 15 s away');
    // While it waits, it probes far more often than the 5 s bound; the log says why it is down.
    expect(long.fields.probing_every_ms).toBe(LIMITS.healthProbeMs);
    expect(long.fields.why).toMatch(/ECONNREFUSED/);

    await relay.up();
    await agent.waitFor(/relay answers again; reconnecting now[\s\S]*connected to relay/, 60_000);
    // That very wait ended at a probe (the only way to log "answers again"), with no attempt between.
    const after = agent.output().slice(long.at);
    const back = after.indexOf('relay answers again; reconnecting now');
    expect(after.slice(0, back).match(/relay link down/g)).toHaveLength(1);
    expect(after.indexOf('connected to relay')).toBeGreaterThan(back);
  }, 240_000);
});
