// A client that gives up on a call while the editor asks the user takes the prompt down with it,
// through the local relay as `npm start` runs it: a real relay in local workerd, a `vimrelay agent`
// process, a real Neovim on a terminal (tmux) whose policy asks before exec, read on its screen as
// the user sees it, and the v2 SDK client in the 2026-07-28
// era, whose way to give up is closing its response stream. The prompt closes, nothing runs, and
// the audit log says the call was cancelled while asking (ask:cancelled), long before the prompt
// would have closed unanswered (a few seconds before the call's deadline).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readAudit } from '../../agent/audit/log.ts';
import { paths } from '../../agent/config/paths.ts';
import { writePolicy } from '../../agent/policy/file.ts';
import { PERMISSION_CLASSES } from '../../protocol/index.ts';
import { isolatedEnv, runCli, startAgentProcess, type AgentProcess } from '../helpers/agent-process.ts';
import { callOk, connectMcp } from '../helpers/mcp.ts';
import { withRelay, type TestRelay } from '../helpers/relay.ts';
import { startTmux, type TmuxScreen } from '../helpers/tmux.ts';
import { waitFor } from '../helpers/wait.ts';

/** Long enough that a prompt closing unanswered could not be mistaken for one the client closed. */
const DEADLINE_MS = 30_000;

let relay: TestRelay;
let env: NodeJS.ProcessEnv;
let agent: AgentProcess;
let nvim: TmuxScreen;
let client: Client;
let editor: string;

beforeAll(async () => {
  relay = await withRelay({ CALL_DEADLINE_MS: String(DEADLINE_MS) });
  env = isolatedEnv({ VIMRELAY_OWNER_SECRET: relay.ownerSecret });
  const sockets = join(String(env.HOME), 'sockets');
  mkdirSync(sockets);
  const rules = PERMISSION_CLASSES.map((klass) => ({ klass, decision: klass === 'exec' ? ('ask' as const) : ('allow' as const) }));
  writePolicy(paths(env).policy, { rules, never_read: [] });
  const enrolled = runCli(['enroll', '--relay', relay.url, '--name', 'giving-up'], env);
  expect(enrolled.status, enrolled.stderr).toBe(0);
  const cwd = join(String(env.HOME), 'work');
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'a.txt'), 'alpha\n');
  nvim = startTmux({ command: ['nvim', '--clean', '-n', '--listen', join(sockets, 'nvim.asking.0'), '-c', 'let g:vimrelay_name = "asking"', 'a.txt'], env, cwd });
  agent = startAgentProcess(['--relay', relay.url, '--discover-dir', sockets], env);
  await agent.waitFor('connected to relay');
  client = await connectMcp(relay.mcpUrl, await relay.mint({ kind: 'access', name: 'giving-up' }), 'modern');
  editor = await waitFor(async () => ((await callOk(client, 'list_editors')).editors as { id: string; name: string }[]).find((e) => e.name === 'asking')?.id, 20_000, 'the editor');
}, 90_000);

afterAll(async () => {
  await client?.close();
  await agent?.stop();
  await nvim?.stop();
  await relay?.stop();
});

it('closing the stream of a call that waits on a prompt closes the prompt and runs nothing', async () => {
  const started = Date.now();
  const giveUp = new AbortController();
  const call = client.callTool({ name: 'run_command', arguments: { editor, commands: 'call setline(1, "payload ran")' } }, { signal: giveUp.signal }).catch((e: unknown) => e);
  // The prompt shows the command it asks about.
  await nvim.until((rows) => rows.some((r) => r.includes('payload ran')), 'the prompt on the screen', 20_000);
  // Past the local relay's threshold for streaming a slow answer (worker/http/slow-answer.ts): a
  // client gone before its answer started is not noticed there (PROTOCOL.md "MCP endpoint").
  await waitFor(async () => (Date.now() - started > 1_500 ? true : undefined), 5_000, 'the answer to have started');
  giveUp.abort();
  expect(await call).toBeInstanceOf(Error);
  const line = await waitFor(() => readAudit(paths(env).audit, 5).find((l) => l.tool === 'run_command'), DEADLINE_MS, 'the call in the audit log');
  expect(line).toMatchObject({ decision: 'ask:cancelled', outcome: 'CANCELLED' });
  // The prompt is gone from the screen, and the user's line is as it was: nothing ran.
  const rows = await nvim.until((r) => !r.some((row) => row.includes('payload ran')), 'the prompt to close', 10_000);
  expect(rows[0]).toBe('alpha');
}, DEADLINE_MS + 30_000);
