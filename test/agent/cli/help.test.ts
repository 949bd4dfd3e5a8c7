// The real `vimrelay` command asked for help, or given a command, option or action it does not
// know: `--help` and `-h` on every command and `vimrelay help <command>` print that command's
// usage on stdout and exit 0 (before anything else runs: `serve --stdio --help` serves nothing);
// a near miss gets "did you mean", and nothing else runs. `--version` says package.json's version.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../../scripts/local-relay.ts';
import { isolatedEnv, runCli } from '../../helpers/agent-process.ts';

const env = isolatedEnv();

/** Every command and its usage line's start, as `vimrelay --help` lists it. */
const COMMANDS: [command: string, usage: string][] = [
  ['agent', 'usage: vimrelay agent [--relay URL]'],
  ['serve', 'usage: vimrelay serve --stdio | --http'],
  ['status', 'usage: vimrelay status\n'],
  ['pair', 'usage: vimrelay pair <relay-url> [--name NAME] [--ticket TICKET]'],
  ['devices', 'usage: vimrelay devices [--relay URL] [--revoke ID]'],
  ['enroll', 'usage: vimrelay enroll --relay URL [--name NAME]'],
  ['token', 'usage: vimrelay token create --relay URL --name NAME'],
  ['token create', 'usage: vimrelay token create --relay URL --name NAME'],
  ['allow', 'usage: vimrelay allow CLASS [--editor GLOB]'],
  ['ask', 'usage: vimrelay ask CLASS [--editor GLOB]'],
  ['review', 'usage: vimrelay review CLASS [--editor GLOB]'],
  ['deny', 'usage: vimrelay deny CLASS [--editor GLOB]'],
  ['rules', 'usage: vimrelay rules [--remove N]'],
  ['log', 'usage: vimrelay log [-n N]'],
  ['service', 'usage: vimrelay service install|uninstall|status [--relay URL]'],
];

describe('help', () => {
  it.each(COMMANDS)('`vimrelay %s --help`, `-h` and `vimrelay help` print its usage and exit 0', (command, usage) => {
    const args = command.split(' ');
    const forms = [[...args, '--help'], [...args, '-h'], ['help', ...args]];
    for (const form of forms) {
      const r = runCli(form, env);
      expect([form, r.stderr, r.status]).toEqual([form, '', 0]);
      expect(r.stdout.startsWith(usage), `${form.join(' ')} printed:\n${r.stdout}`).toBe(true);
      // One command's usage, not the whole list.
      expect(r.stdout).not.toContain('usage: vimrelay <command>');
    }
  });

  it('wins over the other options: `serve --stdio --help` serves nothing and `pair <url> -h` pairs nothing', () => {
    const serve = runCli(['serve', '--stdio', '--help'], env);
    expect(serve).toMatchObject({ status: 0, stderr: '', stdout: expect.stringMatching(/^usage: vimrelay serve /) as unknown });
    const pair = runCli(['pair', 'http://127.0.0.1:9', '-h'], env);
    expect(pair).toMatchObject({ status: 0, stderr: '', stdout: expect.stringMatching(/^usage: vimrelay pair /) as unknown });
  });

  it('`vimrelay --help`, `-h` and `help` still list every command', () => {
    for (const form of [['--help'], ['-h'], ['help']]) {
      const r = runCli(form, env);
      expect(r.status).toBe(0);
      expect(r.stdout.startsWith('usage: vimrelay <command> [options]\n')).toBe(true);
      for (const [name] of COMMANDS.filter(([c]) => !c.includes(' '))) expect(r.stdout).toContain(`\n  ${['allow', 'ask', 'review', 'deny'].includes(name) ? 'allow|ask|review|deny' : name}`);
    }
  });
});

describe('version', () => {
  it('`vimrelay --version` and `-V` print the version of package.json and exit 0', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const form of [['--version'], ['-V']]) expect(runCli(form, env)).toMatchObject({ status: 0, stderr: '', stdout: `vimrelay ${version}\n` });
  });
});

describe('did you mean', () => {
  it('suggests the command a mistyped one is close to, and runs nothing', () => {
    for (const [typed, meant] of [['serv', 'serve'], ['stauts', 'status'], ['pari', 'pair'], ['devcies', 'devices'], ['rule', 'rules']]) {
      const r = runCli([typed!, '--stdio'], env);
      expect([typed, r.status, r.stdout]).toEqual([typed, 2, '']);
      expect(r.stderr).toBe(`vimrelay: unknown command "${typed}"; did you mean \`${meant}\`? (vimrelay --help lists the commands)\n`);
    }
  });

  it('lists the commands for one close to none of them', () => {
    const r = runCli(['frobnicate'], env);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('vimrelay: unknown command "frobnicate"\n');
    expect(r.stderr).not.toContain('did you mean');
    expect(r.stderr).toContain('usage: vimrelay <command> [options]');
  });

  it('`vimrelay help <command>` suggests too', () => {
    const r = runCli(['help', 'serv'], env);
    expect(r).toMatchObject({ status: 2, stdout: '', stderr: 'vimrelay: unknown command "serv"; did you mean `serve`? (vimrelay --help lists the commands)\n' });
  });

  it('suggests the option a mistyped one is close to, naming the command', () => {
    const cases: [string[], string][] = [
      [['serve', '--stdoi'], 'vimrelay serve: unknown option --stdoi; did you mean --stdio? (vimrelay serve --help lists its options)\n'],
      [['agent', '--verbos'], 'vimrelay agent: unknown option --verbos; did you mean --verbose? (vimrelay agent --help lists its options)\n'],
      [['token', 'create', '--scope', 'read'], 'vimrelay token: unknown option --scope; did you mean --scopes? (vimrelay token --help lists its options)\n'],
      [['pair', 'http://127.0.0.1:9', '--nmae', 'x'], 'vimrelay pair: unknown option --nmae; did you mean --name? (vimrelay pair --help lists its options)\n'],
      [['log', '-x'], 'vimrelay log: unknown option -x (vimrelay log --help lists its options)\n'],
      [['status', '--frobnicate'], 'vimrelay status: unknown option --frobnicate (vimrelay status --help lists its options)\n'],
    ];
    for (const [args, message] of cases) {
      const r = runCli(args, env);
      expect([args, r.status, r.stdout, r.stderr]).toEqual([args, 1, '', message]);
    }
  });

  it('suggests the action a mistyped one is close to', () => {
    const cases: [string[], string][] = [
      [['service', 'stauts'], 'vimrelay service: unknown action "stauts"; did you mean `status`? (actions: install, uninstall, status)\n'],
      [['service', 'instal'], 'vimrelay service: unknown action "instal"; did you mean `install`? (actions: install, uninstall, status)\n'],
      [['token', 'creat', '--name', 'x'], 'vimrelay token: unknown action "creat"; did you mean `create`? (actions: create)\n'],
      [['service', 'restart'], 'vimrelay service: unknown action "restart" (actions: install, uninstall, status)\n'],
      [['service'], 'vimrelay service: name an action (actions: install, uninstall, status)\n'],
      [['token', '--name', 'x'], 'vimrelay token: name an action (actions: create)\n'],
      [['service', 'status', 'extra'], 'vimrelay service: unexpected argument "extra" (vimrelay service --help)\n'],
    ];
    for (const [args, message] of cases) {
      const r = runCli(args, env);
      expect([args, r.status, r.stdout, r.stderr]).toEqual([args, 1, '', message]);
    }
  });
});
