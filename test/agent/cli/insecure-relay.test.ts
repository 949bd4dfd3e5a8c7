// A relay on another machine over plain http:// (agent/config/relay-url.ts requireSecureRelay):
// every command that takes a relay — pair, enroll, token create, devices, agent (named or the one
// stored at pairing), service install — refuses it with what to do, and sends it nothing (a
// listener on this machine's own network address, as such a relay would be, counts the
// requests); with --insecure the command goes ahead and talks to it. http:// to this machine is
// allowed as before (every test against the local relay uses it).
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentArgs } from '../../../agent/service/units.ts';
import { saveRelayCredentials } from '../../../agent/config/credentials.ts';
import { paths } from '../../../agent/config/paths.ts';
import { CLI, isolatedEnv } from '../../helpers/agent-process.ts';

/** This machine's first address on a network (not loopback), where another machine's relay would be. */
const NETWORK_ADDRESS = Object.values(networkInterfaces())
  .flat()
  .find((i) => i !== undefined && i.family === 'IPv4' && !i.internal)?.address;

/** Runs the real CLI to its end without blocking this process (the listener answers meanwhile). */
async function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { env, encoding: 'utf8' });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const SUITE = 'a relay on another machine over http://';
describe.skipIf(NETWORK_ADDRESS === undefined)(NETWORK_ADDRESS === undefined ? `${SUITE} (skipped: this machine has no network address to stand for another machine)` : SUITE, () => {
  let relay: Server;
  let url: string;
  const requests: string[] = [];

  beforeAll(async () => {
    relay = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ devices: [] }));
    });
    await new Promise<void>((resolve) => relay.listen(0, NETWORK_ADDRESS, resolve));
    url = `http://${NETWORK_ADDRESS}:${(relay.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => relay.close(() => resolve())));

  it('is refused by every command that takes a relay, saying what to do, and sent nothing', async () => {
    const env = isolatedEnv({ VIMRELAY_OWNER_SECRET: 'secret' });
    const commands = [
      ['pair', url],
      ['enroll', '--relay', url],
      ['token', 'create', '--relay', url, '--name', 'n'],
      ['devices', '--relay', url],
      ['agent', '--relay', url],
      ['service', 'install', '--relay', url],
    ];
    for (const args of commands) {
      const r = await run(args, env);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toBe(
        `vimrelay: the relay URL ${url} is plain http:// to another machine: the device credential, tokens and your buffers would cross the network unencrypted; ` +
          `use https://${NETWORK_ADDRESS}:${(relay.address() as AddressInfo).port}, or add --insecure if you mean it (a relay on a network you trust)\n`,
      );
    }
    // The relay stored at pairing (with --insecure then) is refused as well without it.
    saveRelayCredentials(paths(env).credentials, url, { device_credential: 'vrd_test' });
    for (const args of [['agent'], ['devices'], ['service', 'install']]) {
      const r = await run(args, env);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toContain('add --insecure if you mean it');
    }
    expect(requests).toEqual([]);
  });

  it('is reached with --insecure', async () => {
    const env = isolatedEnv({ VIMRELAY_OWNER_SECRET: 'secret' });
    const r = await run(['devices', '--relay', url, '--insecure'], env);
    expect(r, r.stderr).toMatchObject({ code: 0, stdout: 'No devices. Pair one with: vimrelay pair <relay-url>\n' });
    expect(requests).toEqual(['GET /admin/devices']);
  });
});

describe('the login service of a relay allowed with --insecure', () => {
  it('runs the agent with --insecure too, and only then', () => {
    const spec = { node: '/usr/bin/node', cli: '/opt/vimrelay/bin/vimrelay.js', relay: 'http://relay.lan:8787', stateDir: '/home/u/.local/state/vimrelay', env: {} };
    expect(agentArgs({ ...spec, insecure: true })).toEqual([spec.cli, 'agent', '--service', '--relay', spec.relay, '--insecure']);
    expect(agentArgs(spec)).toEqual([spec.cli, 'agent', '--service', '--relay', spec.relay]);
  });
});
