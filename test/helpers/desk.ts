/**
 * The desk the decision tests answer at: a machine enrolled with a test relay as device "desk",
 * whose policy asks for exec and allows the rest, its agent connected, and a Neovim named "desk"
 * on a terminal (tmux) with `a.txt` open in `cwd`, reached over RPC too (`direct`) for what a
 * test checks behind the screen. The caller stops `agent`, `nvim` and `direct`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { attach, type NeovimClient } from 'neovim';
import { expect } from 'vitest';
import { paths } from '../../agent/config/paths.ts';
import { writePolicy } from '../../agent/policy/file.ts';
import { PERMISSION_CLASSES } from '../../protocol/index.ts';
import { isolatedEnv, runCli, startAgentProcess, type AgentProcess } from './agent-process.ts';
import type { TestRelay } from './relay.ts';
import { startTmux, type TmuxScreen } from './tmux.ts';

export interface Desk {
  env: NodeJS.ProcessEnv;
  /** The directory the Neovims' sockets are discovered in. */
  sockets: string;
  cwd: string;
  agent: AgentProcess;
  nvim: TmuxScreen;
  direct: NeovimClient;
}

/** The desk's policy: exec asks, every other class is allowed. */
export const DESK_RULES = PERMISSION_CLASSES.map((klass) => ({ klass, decision: klass === 'exec' ? ('ask' as const) : ('allow' as const) }));

export async function startDesk(relay: TestRelay): Promise<Desk> {
  const env = isolatedEnv({ VIMRELAY_OWNER_SECRET: relay.ownerSecret });
  const sockets = join(String(env.HOME), 'sockets');
  mkdirSync(sockets);
  writePolicy(paths(env).policy, { rules: DESK_RULES, never_read: [] });
  const enrolled = runCli(['enroll', '--relay', relay.url, '--name', 'desk'], env);
  expect(enrolled.status, enrolled.stderr).toBe(0);
  const cwd = join(String(env.HOME), 'work');
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'a.txt'), 'one\ntwo\nthree\n');
  const socket = join(sockets, 'nvim.desk.0');
  const nvim = startTmux({ command: ['nvim', '--clean', '-n', '--listen', socket, '-c', 'let g:vimrelay_name = "desk"', 'a.txt'], env, cwd });
  const agent = startAgentProcess(['--relay', relay.url, '--discover-dir', sockets], env);
  await agent.waitFor('connected to relay');
  // `as never`: the option is typed as winston's Logger; the client only calls these methods.
  const direct = attach({ socket, options: { logger: { level: 'error', info() {}, warn() {}, error() {}, debug() {} } as never } });
  return { env, sockets, cwd, agent, nvim, direct };
}
