// The real `vimrelay` command given a value it cannot use: a mistyped scope or permission class, a
// relay URL without its scheme (or not a URL at all, or the relay's MCP endpoint, which the
// assistant is given), a name the relay would refuse, a credentials file that is not JSON, a
// mistyped surface for `ask-via`. Each gets one line naming the value and what would do, exit 1,
// and nothing is sent anywhere: never a zod issue dump, a bare "Invalid URL" or a JSON parser's
// complaint without the file.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { paths } from '../../../agent/config/paths.ts';
import { isolatedEnv, runCli } from '../../helpers/agent-process.ts';

/** An environment with an owner secret, so that only the value under test can stop a command. */
function withSecret(): NodeJS.ProcessEnv {
  return isolatedEnv({ VIMRELAY_OWNER_SECRET: 'not-used' });
}

/** A port nothing listens on: a command that got as far as the network would say it cannot reach it. */
const NOWHERE = 'http://127.0.0.1:9';

describe('token create --scopes', () => {
  const env = withSecret();
  const token = (scopes: string): ReturnType<typeof runCli> => runCli(['token', 'create', '--relay', NOWHERE, '--name', 'n', '--scopes', scopes], env);

  it('names a mistyped scope in one line, with the nearest and every valid one', () => {
    const r = token('read,raed');
    expect([r.status, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toBe('vimrelay: unknown scope "raed" in --scopes; did you mean `read`? The scopes are read, write, open, save, exec, terminal\n');
  });

  it('names a scope close to none without a guess', () => {
    expect(token('read,shell')).toMatchObject({ status: 1, stderr: 'vimrelay: unknown scope "shell" in --scopes; the scopes are read, write, open, save, exec, terminal\n' });
  });

  it('refuses an empty list, or an empty scope in it, rather than minting a token with every scope', () => {
    for (const scopes of ['', 'read,', ' , ']) {
      const r = token(scopes);
      expect([scopes, r.status, r.stdout]).toEqual([scopes, 1, '']);
      expect(r.stderr).toBe('vimrelay: --scopes takes a comma-separated list of read, write, open, save, exec, terminal\n');
    }
  });

  it('takes valid scopes with spaces around them (and goes on to the relay)', () => {
    const r = token('read, write');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`cannot reach the relay at ${NOWHERE}`);
  });
});

describe('--name', () => {
  const env = withSecret();
  /** Every command that takes a device or token name, given `name`. */
  const namers = (name: string): string[][] => [
    ['pair', NOWHERE, '--name', name],
    ['enroll', '--relay', NOWHERE, '--name', name],
    ['token', 'create', '--relay', NOWHERE, '--name', name],
  ];

  it('that the relay would refuse is refused first, in one line saying why', () => {
    const cases: [string, string][] = [
      ['laptop/work', 'must not contain control characters or "/"'],
      ['tab\there', 'must not contain control characters or "/"'],
      ['x'.repeat(65), 'must be 1 to 64 characters'],
    ];
    for (const [name, why] of cases) {
      for (const args of namers(name)) {
        const r = runCli(args, env);
        expect([args, r.status, r.stdout, r.stderr]).toEqual([args, 1, '', `vimrelay: --name ${why} (the relay shows it to the owner and puts it in ids)\n`]);
      }
    }
  });

  it('that is valid goes on to the relay', () => {
    for (const args of namers('x'.repeat(64))) expect(runCli(args, env).stderr, args.join(' ')).toContain(`cannot reach the relay at ${NOWHERE}`);
  });
});

describe('allow, ask and deny', () => {
  it('suggest the class a mistyped one is close to', () => {
    const env = isolatedEnv();
    expect(runCli(['allow', 'raed'], env)).toMatchObject({ status: 1, stderr: 'vimrelay: unknown class "raed"; did you mean `read`? It is one of read, write, open, save, exec, terminal\n' });
    expect(runCli(['deny', 'shell'], env)).toMatchObject({ status: 1, stderr: 'vimrelay: unknown class "shell"; it is one of read, write, open, save, exec, terminal\n' });
  });
});

describe('serve --tools', () => {
  const env = isolatedEnv();
  const valid = 'read, edit, lsp, exec, show, joined with "+" (read+lsp)';

  it('names a mistyped toolset in one line, with the nearest and every one, before anything is served', () => {
    for (const mode of ['--stdio', '--http']) {
      expect(runCli(['serve', mode, '--tools', 'read+raed'], env)).toMatchObject({ status: 1, stdout: '', stderr: `vimrelay: unknown toolset "raed" in --tools; did you mean \`read\`? The toolsets are ${valid}\n` });
    }
    expect(runCli(['serve', '--stdio', '--tools', 'everything'], env)).toMatchObject({ status: 1, stdout: '', stderr: `vimrelay: unknown toolset "everything" in --tools; the toolsets are ${valid}\n` });
  });

  it('refuses an empty name rather than serving every tool', () => {
    for (const tools of ['', 'read+', '+lsp']) {
      expect(runCli(['serve', '--stdio', '--tools', tools], env)).toMatchObject({ status: 1, stdout: '', stderr: `vimrelay: --tools takes toolset names: ${valid}\n` });
    }
  });
});

describe('a relay URL', () => {
  const env = withSecret();
  /** Every command that takes a relay URL, given `url`. */
  const takers = (url: string): string[][] => [
    ['pair', url],
    ['devices', '--relay', url],
    ['enroll', '--relay', url],
    ['token', 'create', '--relay', url, '--name', 'n'],
    ['agent', '--relay', url],
    ['service', 'install', '--relay', url],
  ];

  it.each([
    ['localhost:8787', 'http://localhost:8787'],
    ['127.0.0.1:8787', 'http://127.0.0.1:8787'],
    ['[::1]:8787/relay', 'http://[::1]:8787/relay'],
    ['relay.example.com', 'https://relay.example.com'],
    ['relay.example.com:8443/base', 'https://relay.example.com:8443/base'],
  ])('without a scheme (%s) is refused with the URL it likely meant', (typed, meant) => {
    for (const args of takers(typed)) {
      const r = runCli(args, env);
      expect([args, r.status, r.stdout]).toEqual([args, 1, '']);
      expect(r.stderr).toBe(`vimrelay: the relay URL must start with http:// or https://, not "${typed}"; did you mean ${meant}?\n`);
    }
  });

  it('that is the MCP endpoint the assistant is given is refused with the relay URL, by every command', () => {
    const endpoint = (typed: string, meant: string): string => `vimrelay: "${typed}" is the relay's MCP endpoint, which your assistant connects to; this command takes the relay's own URL: did you mean ${meant}?\n`;
    for (const args of takers('http://127.0.0.1:8787/mcp')) expect([args, runCli(args, env)]).toMatchObject([args, { status: 1, stdout: '', stderr: endpoint('http://127.0.0.1:8787/mcp', 'http://127.0.0.1:8787') }]);
    const cases: [string, string][] = [
      ['https://relay.example.com/mcp/', 'https://relay.example.com'],
      ['https://relay.example.com/mcp/read+write', 'https://relay.example.com'],
      ['https://example.com/relay/mcp', 'https://example.com/relay'],
    ];
    for (const [typed, meant] of cases) expect([typed, runCli(['pair', typed], env)]).toMatchObject([typed, { status: 1, stdout: '', stderr: endpoint(typed, meant) }]);
  });

  it('without a scheme and with the MCP endpoint is refused with the relay URL itself', () => {
    expect(runCli(['pair', 'localhost:8787/mcp'], env)).toMatchObject({ status: 1, stderr: 'vimrelay: the relay URL must start with http:// or https://, not "localhost:8787/mcp"; did you mean http://localhost:8787?\n' });
  });

  it('whose path only ends in mcp, or goes below a toolset, is taken as a relay URL', () => {
    for (const url of ['https://relay.example.com/mcpx', 'https://relay.example.com/mcp/read/x']) {
      const r = runCli(['devices', '--relay', url], isolatedEnv({ VIMRELAY_OWNER_SECRET: '' }));
      expect([url, r]).toMatchObject([url, { status: 1, stderr: "vimrelay: set VIMRELAY_OWNER_SECRET to the relay's owner secret\n" }]);
    }
  });

  it('that it suggests is taken', () => {
    const r = runCli(['devices', '--relay', 'https://relay.example.com'], isolatedEnv({ VIMRELAY_OWNER_SECRET: '' }));
    expect(r).toMatchObject({ status: 1, stderr: "vimrelay: set VIMRELAY_OWNER_SECRET to the relay's owner secret\n" });
  });

  it('with another scheme, or not a URL at all, is refused saying so', () => {
    const cases: [string, string][] = [
      ['ftp://relay.example.com', 'vimrelay: the relay URL must start with http:// or https://, not "ftp://relay.example.com"\n'],
      ['http://', 'vimrelay: the relay URL "http://" is not a valid URL\n'],
      ['https://relay example.com', 'vimrelay: the relay URL "https://relay example.com" is not a valid URL\n'],
    ];
    for (const [typed, message] of cases) {
      for (const args of takers(typed)) {
        const r = runCli(args, env);
        expect([args, r.status, r.stderr]).toEqual([args, 1, message]);
      }
    }
  });
});

describe('the credentials file', () => {
  it('when it is not JSON, is named with what is wrong', () => {
    const env = withSecret();
    const file = paths(env).credentials;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '{ "relays": ', { mode: 0o600 });
    for (const args of [['agent'], ['devices'], ['service', 'install']]) {
      const r = runCli(args, env);
      expect([args, r.status, r.stderr.startsWith(`vimrelay: ${file} is not valid JSON: `)]).toEqual([args, 1, true]);
      expect(r.stderr.split('\n')).toHaveLength(2);
    }
  });
});

describe('ask-via', () => {
  it('names a mistyped surface with the nearest, and changes nothing; a valid list is set, shown, and all undoes it', () => {
    const env = isolatedEnv();
    const before = runCli(['ask-via'], env);
    expect(before).toMatchObject({ status: 0, stdout: expect.stringContaining('ask_via: editor, dashboard, assistant (the default') });
    expect(runCli(['ask-via', 'editor,dashbord'], env)).toMatchObject({
      status: 1,
      stdout: '',
      stderr: 'vimrelay: unknown surface "dashbord"; did you mean `dashboard`? It is one of editor, dashboard, assistant, or all\n',
    });
    expect(runCli(['ask-via', ','], env)).toMatchObject({ status: 1, stderr: expect.stringContaining('usage: vimrelay ask-via SURFACE[,SURFACE...] | all') });
    expect(runCli(['ask-via'], env).stdout).toBe(before.stdout);
    expect(runCli(['ask-via', 'editor, editor'], env).stdout).toContain('ask_via: editor\n');
    expect(runCli(['rules'], env).stdout).toContain('ask_via: editor\n');
    expect(runCli(['ask-via', 'all'], env).stdout).toBe(before.stdout);
  });
});
