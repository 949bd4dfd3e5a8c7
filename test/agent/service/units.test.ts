// The login service definitions (agent/service/units.ts), checked by the tools that read them: the
// systemd unit by `systemd-analyze verify` (Debian's systemd package; the executable it names must
// exist, every setting must parse), the launchd plist by a real property-list parser (Python's
// plistlib, which follows Apple's format) with each key of the type launchd.plist(5) gives it.
// Paths with spaces, quotes, `%` and `$` survive both.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentArgs, launchdPlist, SYSTEMD_UNIT, systemdUnit, type ServiceSpec } from '../../../agent/service/units.ts';
import { tempDir } from '../../helpers/temp.ts';

const dir = tempDir('vimrelay-units-');
const odd = join(dir, 'my "odd" 100% $HOME dir');
const spec: ServiceSpec = {
  node: process.execPath,
  cli: join(odd, 'bin', 'vimrelay.js'),
  relay: 'https://relay.example/base',
  stateDir: join(odd, 'state'),
  env: { XDG_CONFIG_HOME: join(odd, 'config'), XDG_STATE_HOME: join(odd, 'state-home') },
};
const hasAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;

describe('the systemd user unit', () => {
  it.skipIf(!hasAnalyze)('passes systemd-analyze verify', () => {
    const file = join(dir, SYSTEMD_UNIT);
    writeFileSync(file, systemdUnit(spec));
    const r = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`).toBe('');
    expect(r.status).toBe(0);
  });

  it('runs the agent as a service, restarts it on failure only, logs to the state directory, and keeps the paths whole', () => {
    const unit = systemdUnit(spec);
    expect(unit).toContain('Restart=on-failure\n');
    expect(unit).toContain('WantedBy=default.target\n');
    expect(unit).toContain(`StandardOutput=append:${spec.stateDir.replace(/%/g, '%%')}/service.log\n`);
    const exec = /^ExecStart=(.*)$/m.exec(unit)?.[1] ?? '';
    // systemd.syntax(7): double-quoted words, \" and \\ escaped, %% for %, $$ for $.
    const words = [...exec.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => (m[1] ?? '').replace(/\\(.)/g, '$1').replace(/%%/g, '%').replace(/\$\$/g, '$'));
    expect(words).toEqual([spec.node, ...agentArgs(spec)]);
    expect(agentArgs(spec)).toEqual([spec.cli, 'agent', '--service', '--relay', spec.relay]);
  });
});

describe('the launchd agent', () => {
  it('is a property list launchd reads: each key with its type', () => {
    const file = join(dir, 'agent.plist');
    writeFileSync(file, launchdPlist(spec));
    const script = [
      'import json, plistlib, sys',
      'with open(sys.argv[1], "rb") as f: p = plistlib.load(f, fmt=plistlib.FMT_XML)',
      'print(json.dumps(p))',
    ].join('\n');
    const r = spawnSync('python3', ['-c', script, file], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const plist = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(plist).toEqual({
      Label: 'dev.vimrelay.agent',
      ProgramArguments: [spec.node, ...agentArgs(spec)],
      EnvironmentVariables: spec.env,
      RunAtLoad: true,
      KeepAlive: { SuccessfulExit: false },
      ThrottleInterval: 5,
      Umask: 0o077,
      StandardOutPath: join(spec.stateDir, 'service.log'),
      StandardErrorPath: join(spec.stateDir, 'service.log'),
    });
  });
});
