// A compact chaos run through the whole chain (a real relay in local workerd, a `vimrelay agent` process, a
// real Neovim, MCP SDK clients): four clients make tick-guarded edits (read_buffer, then
// find_and_replace with its changedtick) while a user types into the same buffer over RPC, and
// meanwhile the relay restarts, the agent restarts, and the agent is frozen (SIGSTOP) past the
// Hub's heartbeat timeout, then thawed. Every edit carries a unique token, and the final buffer is
// reconciled against what each call answered: an edit answered ok appears exactly once; one refused
// (stale tick, no editor, no match) never appears; one whose answer was lost or EDITOR_OFFLINE /
// TIMEOUT (it may or may not have been applied) appears at most once; every line the user typed is
// there once. The counts, how long each fault took to recover from (from the relay answering again,
// the new agent started, SIGCONT, to the first read that succeeds) and how long the Hub took to
// notice the freeze are written to test-artifacts/chaos.json and printed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { afterAll, expect, it } from 'vitest';
import { ROOT } from '../../scripts/local-relay.ts';
import { isolatedEnv, runCli, startAgentProcess, type AgentProcess } from '../helpers/agent-process.ts';
import { connectMcp } from '../helpers/mcp.ts';
import { startNvim, type NvimFixture } from '../helpers/nvim.ts';
import { withRelay, type TestRelay } from '../helpers/relay.ts';
import { waitFor } from '../helpers/wait.ts';

const CLIENTS = 4;
/** Codes that promise nothing was changed. */
const REFUSED = new Set(['STALE_CHANGEDTICK', 'NO_MATCH', 'MULTIPLE_MATCHES', 'NO_EDITOR', 'EDITOR_NOT_FOUND', 'PERMISSION_DENIED', 'INVALID_ARGUMENT']);

type Answer = { kind: 'ok'; data: Record<string, unknown> } | { kind: 'error'; code: string } | { kind: 'lost'; why: string };

/** One tool call whose answer may be lost (the relay restarting under it). */
async function attempt(client: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
  try {
    const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const text = res.content[0]?.type === 'text' ? res.content[0].text : '{}';
    const body = JSON.parse(text) as Record<string, unknown>;
    if (res.isError) return { kind: 'error', code: String((body.error as { code?: unknown } | undefined)?.code) };
    return { kind: 'ok', data: body };
  } catch (err) {
    return { kind: 'lost', why: String(err) };
  }
}

let relay: TestRelay | undefined;
let agent: AgentProcess | undefined;
let nvim: NvimFixture | undefined;
afterAll(async () => {
  if (agent?.proc.pid) process.kill(agent.proc.pid, 'SIGCONT');
  await agent?.stop();
  await nvim?.stop();
  await relay?.stop();
});

it('no edit lost, doubled or applied after a refusal, through relay and agent restarts, a freeze and a typing user', async () => {
  const r = (relay = await withRelay());
  const env = isolatedEnv({ VIMRELAY_OWNER_SECRET: r.ownerSecret });
  const sockets = join(String(env.HOME), 'sockets');
  mkdirSync(sockets);
  expect(runCli(['enroll', '--relay', r.url, '--name', 'chaos'], env).status).toBe(0);
  const lines = Array.from({ length: CLIENTS }, (_, k) => `client-${k}:`);
  const n = (nvim = await startNvim({ files: { 'chaos.txt': [...lines, 'end'].join('\n') + '\n' }, open: ['chaos.txt'], listen: join(sockets, 'nvim.chaos.0') }));
  const args = ['--relay', r.url, '--discover-dir', sockets];
  agent = startAgentProcess(args, env);
  await agent.waitFor('connected to relay');
  const token = await r.mint({ kind: 'access', name: 'chaos' });
  const clients = await Promise.all(Array.from({ length: CLIENTS + 1 }, () => connectMcp(r.mcpUrl, token)));
  const probe = clients[CLIENTS]!;
  /** Resolves with how long (ms) until a read through the relay succeeds again. */
  const recovered = async (since: number): Promise<number> => {
    await waitFor(async () => ((await attempt(probe, 'read_buffer', { max_lines: 1 })).kind === 'ok' ? true : undefined), 45_000, 'a read to succeed again');
    return Date.now() - since;
  };
  await recovered(Date.now());

  // The edits: each client appends its tokens to its own line, guarded by the tick it read.
  const outcomes = new Map<string, Answer>();
  let running = true;
  const editor = async (k: number): Promise<void> => {
    for (let j = 0; running; j++) {
      const c = clients[k]!;
      const read = await attempt(c, 'read_buffer', {});
      if (read.kind !== 'ok') {
        await new Promise((res) => setTimeout(res, 200));
        continue;
      }
      const text = (read.data.lines as string[]).find((l) => l.startsWith(`client-${k}:`));
      if (text === undefined) throw new Error(`line of client ${k} missing`);
      const tokenId = `c${k}e${j}`;
      const answer = await attempt(c, 'find_and_replace', { old_text: text, new_text: `${text} ${tokenId}`, expected_changedtick: read.data.changedtick });
      outcomes.set(tokenId, answer);
      if (answer.kind !== 'ok') await new Promise((res) => setTimeout(res, 50));
    }
  };
  // The user types a line of their own now and then, key by key, into the same buffer.
  const typed: string[] = [];
  const typist = async (): Promise<void> => {
    for (let i = 0; running; i++) {
      const line = `user-${i}`;
      await n.client.input(`G$a<CR>${line}<Esc>`);
      typed.push(line);
      await new Promise((res) => setTimeout(res, 300));
    }
  };
  const work = Promise.all([...Array.from({ length: CLIENTS }, (_, k) => editor(k)), typist()]);
  // Between faults the clients go on editing: each fault comes once `n` more edits have answered.
  const more = (n: number) => {
    const from = outcomes.size;
    return waitFor(() => (outcomes.size >= from + n ? true : undefined), 60_000, `${n} more edits`);
  };

  await more(100);
  const restarting = Date.now();
  await r.restart();
  const relayDown = Date.now() - restarting;
  const afterRelay = await recovered(Date.now());

  await more(80);
  await agent.stop();
  const restarted = Date.now();
  agent = startAgentProcess(args, env);
  const afterAgent = await recovered(restarted);

  await more(80);
  const frozenAt = Date.now();
  process.kill(agent.proc.pid!, 'SIGSTOP');
  // Frozen until the Hub has dropped it: list_editors no longer shows the editor.
  await waitFor(async () => {
    const listed = await attempt(probe, 'list_editors', {});
    return listed.kind === 'ok' && listed.data.count === 0 ? true : undefined;
  }, 30_000, 'the Hub to drop the frozen agent');
  const noticed = Date.now() - frozenAt;
  const thawed = Date.now();
  process.kill(agent.proc.pid!, 'SIGCONT');
  const afterFreeze = await recovered(thawed);

  await more(80);
  running = false;
  await work;
  // Quiet: whatever was in flight has landed or not; the user's last keys are in.
  await waitFor(async () => ((await n.client.eval('mode()')) === 'n' ? true : undefined), 10_000, 'Normal mode');
  const final = (await n.lua<string[]>('return vim.api.nvim_buf_get_lines(0, 0, -1, true)')).join('\n');
  const count = (tokenId: string) => final.split(/\s+/).filter((w) => w === tokenId).length;

  const tally = { ok: 0, refused: 0, uncertain: 0, uncertainApplied: 0, lost: 0, doubled: 0, appliedAfterRefusal: 0 };
  const byCode: Record<string, number> = {};
  for (const [tokenId, answer] of outcomes) {
    const times = count(tokenId);
    if (times > 1) tally.doubled++;
    const code = answer.kind === 'ok' ? 'ok' : answer.kind === 'error' ? answer.code : 'answer lost';
    byCode[code] = (byCode[code] ?? 0) + 1;
    if (answer.kind === 'ok') {
      tally.ok++;
      if (times !== 1) tally.lost++;
    } else if (answer.kind === 'error' && REFUSED.has(answer.code)) {
      tally.refused++;
      if (times !== 0) tally.appliedAfterRefusal++;
    } else {
      tally.uncertain++;
      tally.uncertainApplied += times;
    }
  }
  const finalLines = final.split('\n');
  const userLost = typed.filter((line) => finalLines.filter((l) => l === line).length !== 1);
  const report = {
    edits: outcomes.size,
    ...tally,
    byCode,
    typedLines: typed.length,
    typedLinesLostOrDoubled: userLost.length,
    relayRestartMs: relayDown,
    recoveryMs: { relayRestart: afterRelay, agentRestart: afterAgent, freeze: afterFreeze },
    freezeNoticedAfterMs: noticed,
  };
  mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
  writeFileSync(join(ROOT, 'test-artifacts', 'chaos.json'), JSON.stringify(report, null, 2) + '\n');
  process.stdout.write(`chaos: ${JSON.stringify(report)}\n`);

  expect(tally.ok).toBeGreaterThan(0);
  expect(tally.refused).toBeGreaterThan(0);
  expect({ lost: tally.lost, doubled: tally.doubled, appliedAfterRefusal: tally.appliedAfterRefusal, userLost }).toEqual({ lost: 0, doubled: 0, appliedAfterRefusal: 0, userLost: [] });
  await Promise.all(clients.map((c) => c.close()));
}, 120_000);
