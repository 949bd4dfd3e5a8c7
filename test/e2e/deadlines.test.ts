// Deadlines end to end through the relay, with a short CALL_DEADLINE_MS (3 s; the Hub then waits
// LIMITS.hubGraceMs more for the agent's answer), a real relay in local workerd, a `vimrelay agent` process,
// real Neovims and the MCP SDK client:
//   - a prompt nobody answers is the agent's denial: PERMISSION_DENIED saying the user did not
//     answer within N seconds, audited ask:timeout, the prompt gone and nothing run; never the
//     Hub's TIMEOUT;
//   - a prompt whose call its client cancels is CANCELLED, audited ask:cancelled, the prompt gone;
//   - a blocked editor: the client gets TIMEOUT, and the command or save the editor could only
//     start afterwards (it answered which files the call addresses, then blocked) is not run when
//     it unblocks: `start_by`, the call's own deadline, reaches the editor.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readAudit } from '../../agent/audit/log.ts';
import { paths } from '../../agent/config/paths.ts';
import { writePolicy } from '../../agent/policy/file.ts';
import { PERMISSION_CLASSES, PROMPT_TIMEOUT_HINT } from '../../protocol/index.ts';
import { isolatedEnv, runCli, startAgentProcess, type AgentProcess } from '../helpers/agent-process.ts';
import { callErr, callOk, connectMcp } from '../helpers/mcp.ts';
import { startNvim, type NvimFixture } from '../helpers/nvim.ts';
import { floatsIn } from '../helpers/prompt-view.ts';
import { withRelay, type TestRelay } from '../helpers/relay.ts';
import { waitFor } from '../helpers/wait.ts';

const DEADLINE_MS = 3_000;

let relay: TestRelay;
let env: NodeJS.ProcessEnv;
let agent: AgentProcess;
let asking: NvimFixture;
let busy: NvimFixture;
let client: Client;
let ids: { asking: string; busy: string };

beforeAll(async () => {
  relay = await withRelay({ CALL_DEADLINE_MS: String(DEADLINE_MS) });
  env = isolatedEnv({ VIMRELAY_OWNER_SECRET: relay.ownerSecret });
  const sockets = join(String(env.HOME), 'sockets');
  mkdirSync(sockets);
  // exec asks, except in the editor named "busy"; everything else is allowed.
  const rules = PERMISSION_CLASSES.map((klass) => ({ klass, decision: klass === 'exec' ? ('ask' as const) : ('allow' as const) }));
  writePolicy(paths(env).policy, { rules: [...rules, { klass: 'exec', decision: 'allow', editor: 'busy' }], never_read: [] });
  const enrolled = runCli(['enroll', '--relay', relay.url, '--name', 'deadlines'], env);
  expect(enrolled.status, enrolled.stderr).toBe(0);
  asking = await startNvim({ files: { 'a.txt': 'alpha\n' }, open: ['a.txt'], listen: join(sockets, 'nvim.asking.0'), args: ['-c', 'let g:vimrelay_name = "asking"'] });
  busy = await startNvim({ files: { 'b.txt': 'beta\n' }, open: ['b.txt'], listen: join(sockets, 'nvim.busy.0'), args: ['-c', 'let g:vimrelay_name = "busy"'] });
  agent = startAgentProcess(['--relay', relay.url, '--discover-dir', sockets], env);
  await agent.waitFor('connected to relay');
  client = await connectMcp(relay.mcpUrl, await relay.mint({ kind: 'access', name: 'deadlines' }));
  ids = await waitFor(async () => {
    const editors = (await callOk(client, 'list_editors')).editors as { id: string; name: string }[];
    const byName = (name: string) => editors.find((e) => e.name === name)?.id;
    const [a, b] = [byName('asking'), byName('busy')];
    return a && b ? { asking: a, busy: b } : undefined;
  }, 20_000, 'both editors, named');
}, 90_000);

afterAll(async () => {
  await client?.close();
  await agent?.stop();
  await asking?.stop();
  await busy?.stop();
  await relay?.stop();
});

it('a prompt nobody answers: PERMISSION_DENIED from the agent, not TIMEOUT from the Hub; audited ask:timeout', async () => {
  const denied = await callErr(client, 'run_command', { editor: ids.asking, commands: 'let g:unanswered = 1' });
  expect(denied.code).toBe('PERMISSION_DENIED');
  expect(denied.hint).toMatch(/did not answer within \d+ seconds/);
  expect(readAudit(paths(env).audit, 1)[0]).toMatchObject({ tool: 'run_command', decision: 'ask:timeout', outcome: 'PERMISSION_DENIED' });
  expect(await asking.client.eval('exists("g:unanswered")')).toBe(0);
  expect(await floatsIn(asking)).toBe(0);
});

it('a prompt whose call is cancelled: CANCELLED, audited ask:cancelled (not ask:timeout), the prompt gone and nothing run', async () => {
  // A 2025 client: its AbortSignal sends notifications/cancelled, which the Hub passes on as a wire cancel.
  const legacy = await connectMcp(relay.mcpUrl, await relay.mint({ kind: 'access', name: 'deadlines-cancel' }), 'legacy');
  try {
    const before = readAudit(paths(env).audit, 1_000).length;
    const stop = new AbortController();
    const call = legacy.callTool({ name: 'run_command', arguments: { editor: ids.asking, commands: 'let g:cancelled = 1' } }, { signal: stop.signal }).catch((e: unknown) => e);
    await waitFor(async () => ((await floatsIn(asking)) > 0 ? true : undefined), DEADLINE_MS, 'the prompt');
    stop.abort();
    await call;
    const line = await waitFor(async () => readAudit(paths(env).audit, 1_000)[before], 10_000, 'the audit line');
    expect(line).toMatchObject({ tool: 'run_command', decision: 'ask:cancelled', outcome: 'CANCELLED' });
    await waitFor(async () => ((await floatsIn(asking)) === 0 ? true : undefined), 10_000, 'the prompt to close');
    expect(await asking.client.eval('exists("g:cancelled")')).toBe(0);
  } finally {
    await legacy.close();
  }
});

it.each([
  ['run_command', { commands: 'let g:late = 1' }],
  ['save_buffer', {}],
])('a blocked editor: TIMEOUT for the client, and %s does not start when the editor can get to it', async (tool, args) => {
  await busy.client.command('call setline(1, "beta, unsaved")');
  // The editor answers which files the call addresses, then blocks (a busy plugin, say) longer than
  // the deadline and the Hub's grace: the tool's own request waits in its queue until then.
  await busy.lua(`
    local paths = __vimrelay.latest.tools.paths
    __vimrelay.latest.tools.paths = function(p)
      __vimrelay.latest.tools.paths = paths
      vim.schedule(function() (vim.uv or vim.loop).sleep(${3 * DEADLINE_MS}) end)
      return paths(p)
    end`);
  const timedOut = await callErr(client, tool, { editor: ids.busy, ...args });
  expect(timedOut).toMatchObject({ code: 'TIMEOUT', hint: tool === 'run_command' ? PROMPT_TIMEOUT_HINT : expect.any(String) });
  // Once the editor is free again, it has done nothing: no command, no save.
  await waitFor(async () => ((await busy.client.eval('1')) === 1 ? true : undefined), 6 * DEADLINE_MS, 'the editor to be free');
  expect(await busy.client.eval('[exists("g:late"), &modified]')).toEqual([0, 1]);
  expect(agent.output()).not.toMatch(/error/i);
}, 60_000);
