// The real `vimrelay` command asked for help: `--help` and `-h` on every command and `vimrelay
// help <command>` print that command's usage on stdout and exit 0, before anything else runs
// (`serve --stdio --help` serves nothing).
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli } from '../../helpers/agent-process.ts';

const env = isolatedEnv();

/** Every command and its usage line's start, as `vimrelay --help` lists it. */
const COMMANDS: [command: string, usage: string][] = [
  ['agent', 'usage: vimrelay agent [--relay URL]'],
  ['serve', 'usage: vimrelay serve --stdio | --http'],
  ['status', 'usage: vimrelay status\n'],
  ['pair', 'usage: vimrelay pair <relay-url> [--name NAME]'],
  ['devices', 'usage: vimrelay devices [--relay URL] [--revoke ID]'],
  ['enroll', 'usage: vimrelay enroll --relay URL [--name NAME]'],
  ['token', 'usage: vimrelay token create --relay URL --name NAME'],
  ['token create', 'usage: vimrelay token create --relay URL --name NAME'],
  ['allow', 'usage: vimrelay allow CLASS [--editor GLOB]'],
  ['ask', 'usage: vimrelay ask CLASS [--editor GLOB]'],
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
      for (const [name] of COMMANDS.filter(([c]) => !c.includes(' '))) expect(r.stdout).toContain(`\n  ${name === 'allow' || name === 'ask' || name === 'deny' ? 'allow|ask|deny' : name}`);
    }
  });
});
