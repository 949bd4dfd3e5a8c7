// `vimrelay service` as a user runs it, with the real CLI: install writes the systemd user unit
// under the user's own configuration, and again changes nothing; uninstall removes it, and again
// is a no-op; status says installed or not, running or not (here no user manager answers: the
// isolated XDG_RUNTIME_DIR has no bus, and the commands say what to run once there is one, or,
// for uninstall, once that nothing will start the agent again, with no command on the removed unit), and what
// the agent's status file says. Run as another account (uid 65534, with a home of its own) it
// needs no access to anything but that home.
import { spawnSync } from 'node:child_process';
import { chownSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { saveRelayCredentials } from '../../agent/config/credentials.ts';
import { paths } from '../../agent/config/paths.ts';
import { writeStatus } from '../../agent/config/status.ts';
import { systemdUnit } from '../../agent/service/units.ts';
import { CLI, isolatedEnv, runCli } from '../helpers/agent-process.ts';
import { asOther, itAsOther, OTHER_UID } from '../helpers/other-user.ts';
import { tempDir } from '../helpers/temp.ts';

const RELAY = 'https://relay.example';

/** Every file below `dir`, relative to it. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

describe('vimrelay service on Linux', () => {
  it('installs the unit once, says so twice, and removes it once', () => {
    const env = isolatedEnv();
    const p = paths(env);
    saveRelayCredentials(p.credentials, RELAY, { device_credential: 'vrd_test' });
    const unit = join(String(env.XDG_CONFIG_HOME), 'systemd', 'user', 'vimrelay-agent.service');
    const before = filesBelow(String(env.HOME));

    const first = runCli(['service', 'install'], env);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(`installed: ${unit}`);
    expect(first.stdout).toContain(`for ${RELAY} at login`);
    expect(readFileSync(unit, 'utf8')).toBe(
      systemdUnit({
        node: process.execPath,
        cli: CLI,
        relay: RELAY,
        stateDir: p.stateDir,
        env: { XDG_CONFIG_HOME: String(env.XDG_CONFIG_HOME), XDG_STATE_HOME: String(env.XDG_STATE_HOME), XDG_RUNTIME_DIR: String(env.XDG_RUNTIME_DIR) },
      }),
    );
    expect(statSync(unit).mode & 0o777).toBe(0o600);
    // Nothing else in the home changed.
    expect(filesBelow(String(env.HOME))).toEqual([...before, relative(String(env.HOME), unit)].sort());

    const again = runCli(['service', 'install'], env);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain(`already installed: ${unit}`);

    const status = runCli(['service', 'status'], env);
    expect(status.status).toBe(0);
    expect(status.stdout).toContain(`service: installed (systemd: ${unit})`);
    expect(status.stdout).toMatch(/^running: (yes|no|unknown) \(.+\)$/m);
    expect(status.stdout).toContain('agent: not running');

    // The link `systemctl --user enable` made in an earlier session, with a user manager.
    const link = join(dirname(unit), 'default.target.wants', 'vimrelay-agent.service');
    mkdirSync(dirname(link));
    symlinkSync(unit, link);
    const removed = runCli(['service', 'uninstall'], env);
    expect(removed.stdout).toContain(`removed: ${unit}`);
    // No user manager answers here (the isolated XDG_RUNTIME_DIR has no bus): said once, and no
    // command on the unit it removed; the link goes too, so that no login starts the agent again.
    expect(removed.stdout.match(/did not answer/g)).toHaveLength(1);
    expect(removed.stdout).toContain('no login will start the agent again');
    expect(removed.stdout).not.toContain('systemctl --user disable');
    expect(() => lstatSync(link)).toThrow();
    expect(runCli(['service', 'uninstall'], env).stdout).toBe(`not installed: ${unit}\n`);
    expect(filesBelow(String(env.HOME))).toEqual(before);
    const gone = runCli(['service', 'status'], env);
    expect(gone.status).toBe(3);
    expect(gone.stdout).toContain('service: not installed');
  });

  it('says an agent killed without cleaning up is not running, as vimrelay status does', () => {
    const env = isolatedEnv();
    const p = paths(env);
    mkdirSync(p.stateDir, { recursive: true, mode: 0o700 });
    // The status file of an agent that was connected when it was killed (its pid exists no more).
    const gone = spawnSync('true').pid ?? 0;
    writeStatus(p.status, { pid: gone, relay_url: RELAY, state: 'connected', device: 'laptop', reason: null, editors: [], watching: [], updated_at: new Date().toISOString() });
    expect(runCli(['service', 'status'], env).stdout).toContain('agent: not running');
    expect(runCli(['status'], env).stdout).toBe('agent: not running\n');
    // The same file of a process that runs (this one) says it is connected.
    writeStatus(p.status, { pid: process.pid, relay_url: RELAY, state: 'connected', device: 'laptop', reason: null, editors: [], watching: [], updated_at: new Date().toISOString() });
    expect(runCli(['service', 'status'], env).stdout).toContain(`agent: connected as laptop to ${RELAY}`);
  });

  it('refuses to install for a relay this machine is not paired with, saying how to pair', () => {
    const env = isolatedEnv();
    const r = runCli(['service', 'install', '--relay', RELAY], env);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`not paired with ${RELAY}; run: vimrelay pair ${RELAY}`);
  });

  itAsOther('needs nothing but the user\'s own home (run as uid 65534)', () => {
    const home = tempDir('vimrelay-nobody-');
    mkdirSync(join(home, 'config', 'vimrelay'), { recursive: true });
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_STATE_HOME: join(home, 'state') };
    saveRelayCredentials(paths(env).credentials, RELAY, { device_credential: 'vrd_test' });
    for (const f of [home, join(home, 'config'), join(home, 'config', 'vimrelay'), paths(env).credentials]) chownSync(f, OTHER_UID, OTHER_UID);
    const r = asOther(process.execPath, [CLI, 'service', 'install'], { env });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const unit = join(home, 'config', 'systemd', 'user', 'vimrelay-agent.service');
    expect(statSync(unit).uid).toBe(OTHER_UID);
  });
});
