// `vimrelay pair` end to end: the real CLI against a real relay (local workerd) with an isolated
// XDG home, approved by the owner over HTTP (session cookie + CSRF form, as a browser does); then
// `vimrelay agent` connects with the stored credential and a real Neovim appears through a real
// MCP client; `vimrelay devices` lists it; revoking it drops its editors at once and the agent
// exits. Denial and Ctrl-C end the command without saving anything. With the queue full of
// strangers' requests, the owner's ticket from /pair still pairs. A second machine asking for a
// name another device has is named alike on the owner's page and in its terminal (`<name>-2`).
// Given the URL of `vimrelay serve`, pair (and token create) say it is a local server, not a relay.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayCredentials } from '../../agent/config/credentials.ts';
import { paths } from '../../agent/config/paths.ts';
import { listDevices, revokeDevice } from '../../agent/relay/admin.ts';
import { CLI, isolatedEnv, runCli, startAgentProcess, type AgentProcess } from '../helpers/agent-process.ts';
import { callOk, connectMcp } from '../helpers/mcp.ts';
import { startNvim, type NvimFixture } from '../helpers/nvim.ts';
import { ownerBasic, withRelay, type TestRelay } from '../helpers/relay.ts';
import { startServeHttp } from '../helpers/serve-process.ts';
import { waitFor } from '../helpers/wait.ts';

let relay: TestRelay;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  relay = await withRelay();
}, 90_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await relay?.stop();
});

interface PairProcess {
  proc: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
  /** The user code it printed. */
  code: Promise<string>;
}

/** Starts `vimrelay pair <relay> --name <name> [...more]` (stdout not a terminal: no QR code, no spinner). */
function startPair(env: NodeJS.ProcessEnv, name: string, more: string[] = []): PairProcess {
  const proc = spawn(process.execPath, [CLI, 'pair', relay.url, '--name', name, ...more], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  proc.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  cleanups.push(async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGKILL');
      await exited;
    }
  });
  const code = waitFor(async () => /Code: ([A-Z]{4}-[A-Z]{4})/.exec(out)?.[1], 30_000, () => `a user code from vimrelay pair; it wrote:\n${out}${err}`);
  return { proc, stdout: () => out, stderr: () => err, exited, code };
}

describe('vimrelay pair, approved', () => {
  let env: NodeJS.ProcessEnv;
  let agent: AgentProcess;
  let nvim: NvimFixture;

  it('prints a code and the URL, waits, and stores the credential 0600 once approved', async () => {
    env = isolatedEnv({ VIMRELAY_OWNER_SECRET: relay.ownerSecret });
    const pairing = startPair(env, 'pairbox');
    const code = await pairing.code;
    expect(pairing.stdout()).toContain(`${relay.url}/pair?code=${code}`);
    const page = await relay.decidePairing(code, true);
    expect(page).toContain('pairbox');
    expect(await pairing.exited).toBe(0);
    expect(pairing.stdout()).toMatch(/Paired as device "pairbox"/);
    expect(pairing.stdout()).toContain('vimrelay agent');
    const file = paths(env).credentials;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(relayCredentials(file, relay.url).device_credential).toMatch(/^vrd_/);
  });

  it('then `vimrelay agent` connects with it and a real Neovim is listed through MCP', async () => {
    const sockets = join(String(env.HOME), 'sockets');
    mkdirSync(sockets);
    nvim = await startNvim({ files: { 'p.txt': 'paired\n' }, open: ['p.txt'], listen: join(sockets, 'nvim.pair.0') });
    cleanups.push(() => nvim.stop());
    // No --relay: the only paired relay is the default.
    agent = startAgentProcess(['--discover-dir', sockets], env);
    cleanups.push(() => agent.stop());
    await agent.waitFor('connected to relay');
    const client = await connectMcp(relay.mcpUrl, await relay.mint({ kind: 'access', name: 'pair-e2e' }));
    await waitFor(async () => (((await callOk(client, 'list_editors')).count as number) === 1 ? true : undefined), 30_000, 'the editor to be listed');
    const listed = (await callOk(client, 'list_editors')).editors as { id: string; device: string }[];
    expect(listed[0]?.device).toBe('pairbox');
    expect((await callOk(client, 'read_buffer', {})).lines).toEqual(['paired']);
    await client.close();
  });

  it('`vimrelay devices` lists it online with a last-seen time', () => {
    const run = runCli(['devices'], env);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^ID\s+NAME\s+HOSTNAME\s+STATE\s+LAST SEEN\s+LAST REFUSED$/m);
    expect(run.stdout).toMatch(/pairbox\s+\S+\s+online\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\s+never$/m);
  });

  it('revoking the device drops its editors at once, and the agent exits saying to pair again', async () => {
    const [device] = (await listDevices(relay.url, relay.ownerSecret)).filter((d) => d.name === 'pairbox');
    expect(device).toBeDefined();
    const revoked = await revokeDevice(relay.url, relay.ownerSecret, device?.id ?? '');
    expect(revoked.disconnected).toBe(1);
    const client = await connectMcp(relay.mcpUrl, await relay.mint({ kind: 'access', name: 'after-revoke' }));
    expect((await callOk(client, 'list_editors')).count).toBe(0);
    await client.close();
    expect(await agent.exited).toBe(1);
    expect(agent.output()).toMatch(/revoked/);
    expect(agent.output()).toMatch(/vimrelay pair/);
    // The credential is refused from now on: a new agent exits too.
    const again = startAgentProcess(['--relay', relay.url, '--discover-dir', String(env.XDG_RUNTIME_DIR)], env);
    cleanups.push(() => again.stop());
    expect(await again.exited).toBe(1);
    expect(again.output()).toMatch(/refused this device's credential \(HTTP 401\)/);
    const listed = runCli(['devices', '--relay', relay.url], env);
    expect(listed.stdout).toMatch(/pairbox\s+\S+\s+revoked/);
  });

  it('a machine that asks for a name another device has: the page and the CLI name it alike', async () => {
    const other = isolatedEnv();
    const pairing = startPair(other, 'pairbox');
    const code = await pairing.code;
    expect(pairing.stdout()).toContain('as device "pairbox"');
    const page = await relay.decidePairing(code, true);
    expect(page).toContain('<strong>pairbox-2</strong> <span class="muted">(it asked for pairbox, which another device has)</span>');
    expect(await pairing.exited).toBe(0);
    expect(pairing.stdout()).toContain('Paired as device "pairbox-2" (another device is named "pairbox").');
  });
});

describe('a command that wants a relay, given the URL of `vimrelay serve`', () => {
  it('says it is a local MCP server, not a relay, and what to give instead', async () => {
    const env = isolatedEnv({ VIMRELAY_OWNER_SECRET: 'not-this-one' });
    const serve = await startServeHttp(['--port', '0', '--discover-dir', String(env.XDG_RUNTIME_DIR)], env);
    try {
      const origin = new URL(serve.mcpUrl).origin;
      for (const args of [
        ['pair', origin, '--name', 'confused'],
        ['token', 'create', '--relay', origin, '--name', 'confused'],
      ]) {
        const run = runCli(args, env);
        expect(run.status, args[0]).toBe(1);
        expect(run.stderr).toContain(`${origin} is \`vimrelay serve\`, a local MCP server, not a relay`);
        expect(run.stderr).toContain(`use ${origin}/mcp directly`);
        expect(run.stderr).not.toContain('404');
      }
      expect(relayCredentials(paths(env).credentials, origin).device_credential).toBeUndefined();
    } finally {
      await serve.stop();
    }
  });
});

describe('vimrelay pair, not approved', () => {
  it('denied: exits 1 saying so, and saves nothing', async () => {
    const env = isolatedEnv();
    const pairing = startPair(env, 'denied-box');
    await relay.decidePairing(await pairing.code, false);
    expect(await pairing.exited).toBe(1);
    expect(pairing.stderr()).toMatch(/not paired: the owner denied this device/);
    expect(relayCredentials(paths(env).credentials, relay.url).device_credential).toBeUndefined();
  });

  it('Ctrl-C while waiting stops cleanly and saves nothing', async () => {
    const env = isolatedEnv();
    const pairing = startPair(env, 'impatient');
    await pairing.code;
    await waitFor(async () => (pairing.stderr().includes('Waiting for approval') ? true : undefined), 30_000, 'the waiting message');
    pairing.proc.kill('SIGINT');
    expect(await pairing.exited).toBe(130);
    expect(pairing.stderr()).toMatch(/pairing cancelled/);
    expect(relayCredentials(paths(env).credentials, relay.url).device_credential).toBeUndefined();
  });
});

describe('vimrelay pair, the queue full of strangers\' requests', () => {
  it('is refused, saying how to get in; with a ticket from the owner\'s /pair page it pairs', async () => {
    // Strangers fill the queue from as many addresses as it takes (the local relay takes the
    // address a client names).
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${relay.url}/pair/device`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'CF-Connecting-IP': `127.0.0.${(i % 4) + 2}` },
        body: JSON.stringify({ name: `stranger${i}`, hostname: 'elsewhere' }),
      });
      expect(res.status).toBe(200);
    }
    const env = isolatedEnv();
    const refused = runCli(['pair', relay.url, '--name', 'ticketbox'], env);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`refusing pairing requests for now: Too many pairing requests are waiting for the owner, who can dismiss them at ${relay.url}/pair, or get a ticket there`);

    const owner = { Authorization: ownerBasic(relay.ownerSecret, relay.ownerUser) };
    const csrf = /name="csrf" value="([^"]+)"/.exec(await (await fetch(`${relay.url}/pair`, { headers: owner })).text())?.[1] ?? '';
    const page = await (await fetch(`${relay.url}/pair/ticket`, { method: 'POST', headers: owner, body: new URLSearchParams({ csrf }) })).text();
    const command = /<code>(vimrelay pair \S+ --ticket \S+)<\/code>/.exec(page)?.[1] ?? '';
    expect(command).toMatch(new RegExp(`^vimrelay pair ${relay.url} --ticket vrt_`));
    const pairing = startPair(env, 'ticketbox', ['--ticket', command.split(' ').at(-1) ?? '']);
    const approved = await relay.decidePairing(await pairing.code, true);
    expect(approved).toContain('ticketbox');
    expect(await pairing.exited).toBe(0);
    expect(relayCredentials(paths(env).credentials, relay.url).device_credential).toMatch(/^vrd_/);
  });
});
