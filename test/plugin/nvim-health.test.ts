// :checkhealth vimrelay in a real Neovim with plugin/nvim, against the real agent and `serve`
// processes of the same user (same XDG state directory), in each state a user meets: no agent has
// ever run; `vimrelay serve` serving locally and listing this editor; an agent that cannot reach
// its relay; an agent connected to a real relay (local workerd); an agent that died; and an editor
// listening where the agent does not look. Each problem comes with an advice line.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveRelayCredentials } from '../../agent/config/credentials.ts';
import { paths } from '../../agent/config/paths.ts';
import { ROOT } from '../../scripts/local-relay.ts';
import { isolatedEnv, runCli, startAgentProcess } from '../helpers/agent-process.ts';
import { nvimDriver, waitFor, type NvimDriver } from '../helpers/editors.ts';
import { withRelay, type TestRelay } from '../helpers/relay.ts';
import { startServeHttp } from '../helpers/serve-process.ts';

const env = isolatedEnv();
const sockets = join(String(env.HOME), 'sockets');
const plugin = ['--cmd', `set rtp^=${join(ROOT, 'plugin', 'nvim')}`, '--cmd', 'runtime plugin/vimrelay.lua'];
const shared = { XDG_STATE_HOME: env.XDG_STATE_HOME, XDG_CONFIG_HOME: env.XDG_CONFIG_HOME };
let fx: NvimDriver;
let relay: TestRelay | undefined;
const stops: (() => Promise<unknown>)[] = [];

/** What :VimRelayStatus says in `d`. */
async function status(d: NvimDriver = fx): Promise<string> {
  return (await d.nvim.client.request('nvim_exec', ['VimRelayStatus', true])) as string;
}

/**
 * The report of :checkhealth vimrelay in `d`, each item as `OK: ...`, `WARNING: ...` or `ERROR: ...`
 * whichever way the Neovim writes it (0.7: `- OK: ...`; 0.10+: `- ✅ OK ...`).
 */
async function health(d: NvimDriver = fx): Promise<string> {
  await d.nvim.client.command('checkhealth vimrelay');
  const lines = (await d.nvim.client.request('nvim_buf_get_lines', [0, 0, -1, false])) as string[];
  await d.nvim.client.command('bwipeout!');
  return lines.map((l) => l.replace(/^(\s*)- (?:\S+ )?(OK|WARNING|ERROR):? /u, '$1- $2: ')).join('\n');
}

beforeAll(async () => {
  mkdirSync(sockets, { recursive: true });
  fx = await nvimDriver({ env: shared, listen: join(sockets, 'nvim.health.0'), args: plugin });
});
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
  await fx?.stop();
  await relay?.stop();
});

describe(':checkhealth vimrelay', () => {
  it('says no agent has run, and how to start one', async () => {
    const report = await health();
    expect(report).toContain('OK: Neovim 0.');
    expect(report).toContain(`ERROR: no vimrelay agent has run for this user (no ${paths(env).stateDir}/status.json)`);
    expect(report).toContain('vimrelay service install');
    expect(report).toContain(`OK: this editor listens at ${fx.nvim.socket}`);
  });

  it('uses the health API of the Neovim it runs on: no deprecated function called, no message left', async (ctx) => {
    await health();
    // Neovim 0.10 says 'Running healthchecks...' itself.
    const messages = (await fx.nvim.client.request('nvim_exec', ['messages', true])) as string;
    expect(messages.split('\n').filter((l) => l !== '' && l !== 'Running healthchecks...')).toEqual([]);
    if (!(await fx.nvim.lua<boolean>('return (pcall(require, "vim.deprecated.health"))'))) ctx.skip('this Neovim keeps no record of deprecated calls (before 0.11, each is a message)');
    await fx.nvim.client.command('checkhealth vim.deprecated');
    const report = ((await fx.nvim.client.request('nvim_buf_get_lines', [0, 0, -1, false])) as string[]).join('\n');
    await fx.nvim.client.command('bwipeout!');
    expect(report).toContain('vim.deprecated');
    expect(report).not.toMatch(/vimrelay/);
  });

  it('sees vimrelay serve serving locally, listing this editor', async () => {
    const serve = await startServeHttp(['--port', '0', '--discover-dir', sockets], env);
    try {
      const report = await waitFor(async () => {
        const r = await health();
        return r.includes('OK: the agent lists this editor') ? r : undefined;
      }, 15_000, 'serve to list the editor');
      expect(report).toContain(`OK: vimrelay serve (pid ${serve.proc.pid}) serves this machine's editors locally, over HTTP at ${serve.mcpUrl}`);
      expect(report).toContain('named "work"');
      // :VimRelayStatus says it as Vim's does.
      const said = await status();
      expect(said).toContain(`  serve: pid ${serve.proc.pid} serves this machine's editors locally, over ${serve.mcpUrl}`);
      expect(said).toContain('  this Neovim: listed');
    } finally {
      await serve.stop();
    }
    // Its status goes with it.
    expect(await health()).not.toContain('vimrelay serve');
  });

  it('says an agent cannot reach its relay, and that it keeps retrying', async () => {
    const dead = 'http://127.0.0.1:9';
    saveRelayCredentials(paths(env).credentials, dead, { device_credential: 'vrd_unused' });
    const agent = startAgentProcess(['--relay', dead, '--discover-dir', sockets], env);
    stops.push(() => agent.stop());
    const report = await waitFor(async () => {
      const r = await health();
      return r.includes('is not connected to the relay at') && r.includes('lists this editor') ? r : undefined;
    }, 20_000, 'the agent to be waiting and to list the editor');
    expect(report).toMatch(new RegExp(`WARNING: the vimrelay agent \\(pid ${agent.proc.pid}\\) is not connected to the relay at ${dead} \\(`));
    expect(report).toContain('It keeps retrying');
    expect(await status()).toMatch(new RegExp(`  agent: pid ${agent.proc.pid}, not connected to ${dead} \\(.*\\); it keeps retrying`));
    // Killed: its status file stays, its process is gone.
    agent.proc.kill('SIGKILL');
    await agent.exited;
    const killed = await health();
    expect(killed).toContain(`ERROR: the vimrelay agent is not running (pid ${agent.proc.pid} is gone`);
    expect(killed).toContain('Start it: `vimrelay agent`');
  });

  it('says an agent is connected, and to which relay and as which device', async () => {
    relay = await withRelay();
    const enrolled = runCli(['enroll', '--relay', relay.url, '--name', 'health-box'], { ...env, VIMRELAY_OWNER_SECRET: relay.ownerSecret });
    expect(enrolled.status).toBe(0);
    const agent = startAgentProcess(['--relay', relay.url, '--discover-dir', sockets], env);
    stops.push(() => agent.stop());
    await agent.waitFor('connected to relay');
    const report = await waitFor(async () => {
      const r = await health();
      return r.includes('lists this editor') ? r : undefined;
    }, 15_000, 'the agent to list the editor');
    expect(report).toContain(`OK: the vimrelay agent (pid ${agent.proc.pid}) is connected to the relay at ${relay.url} as health-box`);

    // A Neovim listening outside the directories the agent scans is told so.
    const elsewhere = await nvimDriver({ env: shared, listen: join(String(env.HOME), 'elsewhere', 'editor.sock'), args: plugin });
    try {
      const outside = await health(elsewhere);
      expect(outside).toContain(`WARNING: this editor listens at ${elsewhere.nvim.socket}, where the agent does not look (${sockets})`);
      expect(outside).toContain('connect_editor');
      expect(outside).toContain('WARNING: the agent does not list this editor yet');
    } finally {
      await elsewhere.stop();
    }
  });
});
