// The files that steer the agent or hold its secrets are obeyed only when nobody but the user
// could have written them (agent/config/own-file.ts): a policy.json writable by group or others,
// or put there by another account (uid 65534, through a config directory a shared group could
// write), or in a config directory another account owns, is refused with what to fix, by a
// running agent (which then acts on none of it: a real Neovim runs nothing it allowed) and by
// the CLI; so are credentials.json, config.json and local-token. The config directory is made
// 0700 under umask 002, and narrowed when the user's and found wider.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, type ToolOutcome } from '../../../protocol/index.ts';
import { Dispatcher } from '../../../agent/calls/dispatcher.ts';
import { saveRelayCredentials } from '../../../agent/config/credentials.ts';
import { paths } from '../../../agent/config/paths.ts';
import { localTokenFile } from '../../../agent/local/token.ts';
import { writePolicy, type Policy } from '../../../agent/policy/file.ts';
import { ownPlaces } from '../../../agent/policy/own-files.ts';
import { openCallGuard } from '../../../agent/policy/setup.ts';
import { CLI, isolatedEnv, runCli } from '../../helpers/agent-process.ts';
import { nvimDriver, type Driver } from '../../helpers/editors.ts';
import { asOther, itAsOther, OTHER_UID } from '../../helpers/other-user.ts';

const execIs = (decision: 'allow' | 'deny'): Policy => ({ rules: [{ klass: 'exec', decision }], never_read: [] });

/** The mode bits of `path`. */
const modeOf = (path: string): number => statSync(path).mode & 0o777;

describe('a policy file someone else could have written', () => {
  let d: Driver;
  let env: NodeJS.ProcessEnv;
  let p: ReturnType<typeof paths>;
  let dispatcher: Dispatcher;
  let seq = 0;
  /** A run_command through the agent's dispatcher, and whether it ran in the editor. */
  const exec = async (): Promise<{ outcome: ToolOutcome | undefined; ran: boolean }> => {
    const name = `g:owned_${++seq}`;
    const outcome = await dispatcher.handle({ id: `o-${seq}`, tool: 'run_command', editor: d.editor.id, args: { commands: `let ${name} = 1` }, scopes: [...ALL_SCOPES], client: 'local:stdio', deadline_ms: 20_000 });
    return { outcome, ran: (await d.expr(`exists("${name}")`)) === 1 };
  };

  beforeAll(async () => {
    d = await nvimDriver({ files: { 'a.txt': 'alpha\n' }, open: ['a.txt'] });
    env = isolatedEnv();
    p = paths(env);
    writePolicy(p.policy, execIs('deny'));
    dispatcher = new Dispatcher({ get: (id) => (id === d.editor.id ? d.editor : undefined) }, openCallGuard(p, ownPlaces(env), String(env.HOME)));
  });
  afterAll(() => d?.stop());

  it('refuses a policy.json writable by group or others, saying to chmod it, and acts on nothing in it', async () => {
    for (const mode of [0o664, 0o602]) {
      writePolicy(p.policy, execIs('allow'));
      chmodSync(p.policy, mode);
      const { outcome, ran } = await exec();
      expect(outcome).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', hint: expect.stringContaining(`writable by others (mode ${mode.toString(8)})`) as unknown } });
      expect(ran).toBe(false);
      const rules = runCli(['rules'], env);
      expect(rules.status).toBe(1);
      expect(rules.stderr).toContain(`chmod 600 '${p.policy}'`);
    }
    chmodSync(p.policy, 0o600);
    expect(await exec()).toMatchObject({ outcome: { ok: true }, ran: true });
  });

  itAsOther('refuses a policy.json another account put in a config directory its group could write, and narrows the directory', async () => {
    writePolicy(p.policy, execIs('deny'));
    // What umask 002 and a group shared with the other account leave: a config directory its group
    // may write, on a path it may walk.
    for (const dir of [String(env.HOME), dirname(p.configDir)]) chmodSync(dir, 0o755);
    chownSync(p.configDir, 0, OTHER_UID);
    chmodSync(p.configDir, 0o775);
    const forged = JSON.stringify({ rules: [{ class: 'exec', decision: 'allow' }], never_read: [] });
    const swap = asOther('sh', ['-c', 'printf %s "$1" > "$2.new" && mv "$2.new" "$2"', 'sh', forged, p.policy]);
    expect(swap).toMatchObject({ status: 0 });
    expect(statSync(p.policy).uid).toBe(OTHER_UID);

    const { outcome, ran } = await exec();
    expect(outcome).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', hint: expect.stringContaining(`owned by uid ${OTHER_UID}, not by you`) as unknown } });
    expect(ran).toBe(false);
    // Read once, the directory is the user's alone again: the other account can no longer write there.
    expect(modeOf(p.configDir)).toBe(0o700);
    expect(asOther('touch', [join(p.configDir, 'planted')]).status).not.toBe(0);
    const serve = runCli(['serve', '--stdio', '--discover-dir', String(env.XDG_RUNTIME_DIR)], env);
    expect(serve.status).toBe(1);
    expect(serve.stderr).toContain(`${p.policy} is owned by uid ${OTHER_UID}`);
    expect(serve.stderr).toContain(`chown 0 '${p.policy}'`);

    rmSync(p.policy);
    writePolicy(p.policy, execIs('deny'));
    expect(await exec()).toMatchObject({ outcome: { ok: false, error: { code: 'PERMISSION_DENIED', rule: 'exec deny' } }, ran: false });
  });

  itAsOther('refuses a config directory another account owns', async () => {
    writePolicy(p.policy, execIs('allow'));
    chownSync(p.configDir, OTHER_UID, OTHER_UID);
    try {
      const { outcome, ran } = await exec();
      expect(outcome).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', hint: expect.stringContaining(`${p.configDir} is owned by uid ${OTHER_UID}`) as unknown } });
      expect(ran).toBe(false);
    } finally {
      chownSync(p.configDir, 0, 0);
    }
  });
});

describe('the other files of the config directory', () => {
  it('refuses credentials.json, config.json and local-token writable by others, saying to chmod them', () => {
    const env = isolatedEnv();
    const p = paths(env);
    const relay = 'http://127.0.0.1:9';
    saveRelayCredentials(p.credentials, relay, { device_credential: 'vrd_test' });
    writeFileSync(p.config, '{ "tcp_editors": [] }\n');
    writeFileSync(localTokenFile(p.configDir), `${'t'.repeat(43)}\n`);
    const cases: [string, string[]][] = [
      [p.credentials, ['agent', '--relay', relay]],
      [p.config, ['serve', '--stdio', '--discover-dir', String(env.XDG_RUNTIME_DIR)]],
      [localTokenFile(p.configDir), ['serve', '--http', '--port', '0', '--discover-dir', String(env.XDG_RUNTIME_DIR)]],
    ];
    for (const [file, args] of cases) {
      chmodSync(file, 0o666);
      const run = runCli(args, env);
      expect(run.status, file).toBe(1);
      expect(run.stderr).toContain(`${file} is writable by others (mode 666)`);
      expect(run.stderr).toContain(`chmod 600 '${file}'`);
      chmodSync(file, 0o600);
    }
  });

  it('makes a fresh config directory 0700 under umask 002, and narrows one found wider', () => {
    const env = isolatedEnv();
    const p = paths(env);
    rmSync(p.configDir, { recursive: true });
    const run = spawnSync('sh', ['-c', 'umask 002 && exec "$0" "$1" allow read', process.execPath, CLI], { env, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(modeOf(p.configDir)).toBe(0o700);
    expect(modeOf(p.policy)).toBe(0o600);

    // Made by hand under umask 002, with a file others could read.
    chmodSync(p.configDir, 0o775);
    chmodSync(p.policy, 0o644);
    expect(runCli(['rules'], env).status).toBe(0);
    expect(modeOf(p.configDir)).toBe(0o700);
    expect(modeOf(p.policy)).toBe(0o600);
  });
});
