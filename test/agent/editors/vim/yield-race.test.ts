// An agent that starts while `vimrelay serve` holds the Vim socket, and is busy starting while
// serve yields it (agent/editors/vim/listener.ts, holder.ts): the agent's first probe of the
// socket is connected by the kernel before serve yields, and seen only after serve has given the
// socket up and removed the holder file. The agent still says whom it waits for — serve, by its
// pid — never "another vimrelay process", and takes the socket on its next try. A real serve in a
// child process; the agent's listener in this process, whose event loop the test holds as a busy
// start does.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { paths } from '../../../../agent/config/paths.ts';
import { writeStatus } from '../../../../agent/config/status.ts';
import { EditorRegistry } from '../../../../agent/editors/registry.ts';
import { holderFile, readHolder } from '../../../../agent/editors/vim/holder.ts';
import { VimListener } from '../../../../agent/editors/vim/listener.ts';
import type { Logger } from '../../../../agent/log.ts';
import { isolatedEnv } from '../../../helpers/agent-process.ts';
import { startServeHttp, type ServeHttpProcess } from '../../../helpers/serve-process.ts';
import { waitFor } from '../../../helpers/wait.ts';

const RELAY = 'https://relay.example';
let env: NodeJS.ProcessEnv;
let serve: ServeHttpProcess;
let listener: VimListener | undefined;
const logged: string[] = [];
const logger: Logger = { debug() {}, info: (msg) => logged.push(msg), warn: (msg) => logged.push(msg), error: (msg) => logged.push(msg) };

/** Blocks this process's event loop until `done()` or `ms` have passed, as a long synchronous start would. */
function holdTheLoop(done: () => boolean, ms: number): void {
  const until = Date.now() + ms;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (!done() && Date.now() < until) Atomics.wait(pause, 0, 0, 10);
}

beforeAll(async () => {
  env = isolatedEnv();
  const none = join(String(env.HOME), 'no-neovims');
  mkdirSync(none);
  serve = await startServeHttp(['--port', '0', '--discover-dir', none], env);
  await waitFor(() => readHolder(holderFile(env)), 10_000, () => `serve to hold the Vim socket; it logged:\n${serve.stderr()}`);
}, 30_000);

afterAll(async () => {
  await listener?.stop();
  await serve?.stop();
  if (env) rmSync(String(env.HOME), { recursive: true, force: true });
});

it('names serve as the holder it waits for when serve yields between its probe and its look at the holder file, and takes the socket next', async () => {
  expect(readHolder(holderFile(env))).toEqual({ pid: serve.proc.pid, role: 'serve', relay: null });
  // Up to its first wait, start() has read the holder file and sent its probe's connect.
  const starting = VimListener.start({ registry: new EditorRegistry(logger), env, holder: { role: 'agent', relay: RELAY }, logger });
  // As the agent does next: its status file names it, which serve yields to (holder.ts).
  writeStatus(paths(env).status, { pid: process.pid, relay_url: RELAY, state: 'connecting', device: null, reason: null, editors: [], updated_at: new Date().toISOString() });
  holdTheLoop(() => !existsSync(holderFile(env)), 15_000);
  expect(existsSync(holderFile(env)), `serve to yield the socket while this process is busy; serve logged:\n${serve.stderr()}`).toBe(false);
  listener = await starting;

  expect(logged).toContain(`vimrelay serve (pid ${serve.proc.pid}) serves Vims, not this agent, until it yields the Vim socket (it does within seconds)`);
  expect(logged.filter((line) => line.startsWith('another vimrelay process'))).toEqual([]);
  const taken = listener;
  await waitFor(() => taken.address ?? undefined, 10_000, () => `the agent to take the socket; it logged:\n${logged.join('\n')}`);
  expect(readHolder(holderFile(env))).toEqual({ pid: process.pid, role: 'agent', relay: RELAY });
});
