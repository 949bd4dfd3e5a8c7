// vimrelay's own files out of every tool's reach, end to end, as the attack that worked: with
// `open` and `read` allowed, an MCP client called open_file + read_buffer on the agent's
// credentials.json and got the device credential. Here an MCP SDK client goes through the relay
// (local workerd + `vimrelay agent`) to a real Neovim and a real Vim, under a policy that allows
// every class and sets `never_read: []`: open_file, read_buffer and write_buffer of every own file
// (credentials.json, policy.json, local-token, vim-token, the audit and agent logs, the takeover key, a relay
// checkout's .dev.vars and .wrangler storage, a hard link and a symlink to credentials.json) are
// PERMISSION_DENIED naming the file as vimrelay's own; once the user has them open, grep_buffers,
// get_state, run_command, send_keys, find_and_replace and save_buffer leak nothing and change
// nothing. No secret appears in any result.
import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSION_CLASSES } from '../../protocol/index.ts';
import { writePolicy } from '../../agent/policy/file.ts';
import { isolatedEnv, runCli, startAgentProcess, type AgentProcess } from '../helpers/agent-process.ts';
import { callErr, callOk, connectMcp } from '../helpers/mcp.ts';
import { startNvim, type NvimFixture } from '../helpers/nvim.ts';
import { withRelay, type TestRelay } from '../helpers/relay.ts';
import { startVim, type VimFixture } from '../helpers/vim.ts';
import { waitFor } from '../helpers/wait.ts';

const OWNER_SECRET_LINE = 'OWNER_SECRET=own-files-owner-secret-0123456789';
const STORAGE_SECRET = 'relay-storage-secret-0123456789';
const LOCAL_TOKEN = 'vrl_own-files-local-token-0123456789';

let relay: TestRelay;
let agent: AgentProcess;
let nvim: NvimFixture;
let vim: VimFixture;
let client: Client;
let env: NodeJS.ProcessEnv;
/** Each own file the attack tries, with the kind the refusal names. */
let files: { path: string; kind: string }[];
/** What must never appear in a result: the credential, the tokens, the owner secret, the storage. */
let secrets: string[];

type Kind = 'nvim' | 'vim';
const editorId = async (kind: Kind): Promise<string> => {
  const editors = (await callOk(client, 'list_editors')).editors as { id: string; kind: Kind }[];
  const found = editors.find((e) => e.kind === kind);
  if (!found) throw new Error(`no ${kind} listed`);
  return found.id;
};
const noSecret = (value: unknown): void => {
  const text = JSON.stringify(value);
  for (const s of secrets) expect(text, `a result shows ${s.slice(0, 12)}…`).not.toContain(s);
};

beforeAll(async () => {
  relay = await withRelay();
  env = isolatedEnv();
  const home = String(env.HOME);
  const config = join(String(env.XDG_CONFIG_HOME), 'vimrelay');
  const state = join(String(env.XDG_STATE_HOME), 'vimrelay');
  // Every class allowed and never_read empty: nothing but the agent's own rule stands in the way.
  writePolicy(join(config, 'policy.json'), { rules: PERMISSION_CLASSES.map((klass) => ({ klass, decision: 'allow' as const })), never_read: [] });
  const enrolled = runCli(['enroll', '--relay', relay.url, '--name', 'own-files'], { ...env, VIMRELAY_OWNER_SECRET: relay.ownerSecret });
  if (enrolled.status !== 0) throw new Error(`enroll failed: ${enrolled.stderr}`);
  writeFileSync(join(config, 'local-token'), `${LOCAL_TOKEN}\n`, { mode: 0o600 });
  const checkout = join(home, 'relay-checkout');
  mkdirSync(join(checkout, '.wrangler', 'state', 'v3', 'do'), { recursive: true });
  writeFileSync(join(checkout, '.dev.vars'), `${OWNER_SECRET_LINE}\n`);
  writeFileSync(join(checkout, '.wrangler', 'state', 'v3', 'do', 'hub.sqlite'), `${STORAGE_SECRET}\n`);
  const links = join(home, 'links');
  mkdirSync(links);
  linkSync(join(config, 'credentials.json'), join(links, 'notes.txt'));
  symlinkSync(join(config, 'credentials.json'), join(links, 'settings.json'));

  const sockets = join(home, 'sockets');
  mkdirSync(sockets);
  nvim = await startNvim({ files: { 'notes.md': 'plain notes\n' }, open: ['notes.md'], listen: join(sockets, 'nvim.own.0') });
  agent = startAgentProcess(['--relay', relay.url, '--discover-dir', sockets], env);
  await agent.waitFor('connected to relay');
  const vimCwd = join(home, 'vim-work');
  mkdirSync(vimCwd);
  vim = startVim(env, vimCwd, { files: { 'notes.md': 'plain notes\n' }, open: ['notes.md'], name: 'own' });
  client = await connectMcp(relay.mcpUrl, await relay.mint({ kind: 'access', name: 'own-files' }));
  await waitFor(async () => (((await callOk(client, 'list_editors')).editors as unknown[]).length === 2 ? true : undefined), 20_000, () => `both editors listed; the agent logged:\n${agent.output()}`);
  // One call first, so that the audit log exists.
  await callOk(client, 'get_state_brief', { editor: await editorId('nvim') });

  const credential = (JSON.parse(readFileSync(join(config, 'credentials.json'), 'utf8')) as { relays: Record<string, { device_credential: string }> }).relays[relay.url]?.device_credential;
  if (!credential) throw new Error('no device credential stored');
  secrets = [credential, LOCAL_TOKEN, readFileSync(join(config, 'vim-token'), 'utf8').trim(), readFileSync(join(state, 'takeover-key'), 'utf8').trim(), 'own-files-owner-secret', STORAGE_SECRET];
  files = [
    { path: join(config, 'credentials.json'), kind: 'config' },
    { path: join(config, 'policy.json'), kind: 'config' },
    { path: join(config, 'local-token'), kind: 'config' },
    { path: join(config, 'vim-token'), kind: 'config' },
    { path: join(state, 'audit.log'), kind: 'state' },
    { path: join(state, 'agent.log'), kind: 'state' },
    { path: join(state, 'takeover-key'), kind: 'state' },
    { path: join(checkout, '.dev.vars'), kind: 'dev_vars' },
    { path: join(checkout, '.wrangler', 'state', 'v3', 'do', 'hub.sqlite'), kind: 'wrangler' },
    { path: join(links, 'notes.txt'), kind: 'config' },
    { path: join(links, 'settings.json'), kind: 'config' },
  ];
}, 90_000);

afterAll(async () => {
  await client?.close();
  await vim?.stop();
  await agent?.stop();
  await nvim?.stop();
  await relay?.stop();
});

describe.each(['nvim', 'vim'] as const)('vimrelay\'s own files on %s, with never_read empty', (kind) => {
  /** A call that must be refused as touching one of vimrelay's own files of `own` kind. */
  const refusedOwn = async (tool: string, args: Record<string, unknown>, own: string): Promise<void> => {
    const err = await callErr(client, tool, { editor: await editorId(kind), ...args });
    noSecret(err);
    expect(err, `${tool} ${JSON.stringify(args)}`).toMatchObject({ code: 'PERMISSION_DENIED', own_file: own });
    expect(err.message).toMatch(/vimrelay's own/);
    expect(err.hint).toMatch(/whatever the policy says/);
  };

  it('refuses open_file, read_buffer and write_buffer of each one, by path, hard link and symlink', async () => {
    for (const { path, kind: own } of files) {
      await refusedOwn('open_file', { path }, own);
      await refusedOwn('read_buffer', { buffer: path }, own);
      await refusedOwn('write_buffer', { buffer: path, text: '{"rules": [], "never_read": []}\n' }, own);
    }
    // Nothing was loaded or changed by the attempts.
    const brief = await callOk(client, 'get_state_brief', { editor: await editorId(kind) });
    for (const { path } of files) expect((brief.buffers as { path: string | null }[]).some((b) => b.path === path), path).toBe(false);
  });

  it('leaves them out of every result once the user has them open, and refuses to touch them', async () => {
    const editor = await editorId(kind);
    const credentials = files[0]?.path ?? '';
    const devVars = files.find((f) => f.kind === 'dev_vars')?.path ?? '';
    // The user opens both, and looks at credentials.json.
    if (kind === 'nvim') await nvim.lua("local a, b = ...; vim.fn.bufload(vim.fn.bufadd(b)); vim.cmd('edit ' .. vim.fn.fnameescape(a))", credentials, devVars);
    else vim.ex(`badd ${devVars} | call bufload(bufnr('${devVars}')) | edit ${credentials}`);
    const shown = await waitFor(async () => {
      const brief = await callOk(client, 'get_state_brief', { editor });
      const buffers = brief.buffers as { buf: number; path: string | null; loaded: boolean; line_count: number | null }[];
      const found = buffers.find((b) => b.path === credentials);
      return found?.loaded && buffers.some((b) => b.path === devVars && b.loaded) ? { brief, found } : undefined;
    }, 10_000, 'the user\'s own buffers to be loaded');
    noSecret(shown.brief);
    expect(shown.found.line_count).toBeNull();

    await refusedOwn('read_buffer', { buffer: shown.found.buf }, 'config');
    await refusedOwn('read_buffer', {}, 'config');
    expect((await callOk(client, 'grep_buffers', { editor, pattern: 'vrd_|OWNER_SECRET', mode: 'regex' })).hits).toEqual([]);
    noSecret(await callOk(client, 'get_state', { editor }));
    await refusedOwn('run_command', { commands: '%print' }, 'config');
    await refusedOwn('send_keys', { keys: 'ggdG' }, 'config');
    await refusedOwn('find_and_replace', { buffer: credentials, old_text: 'vrd_', new_text: 'x' }, 'config');
    await refusedOwn('save_buffer', { buffer: devVars }, 'dev_vars');
    await refusedOwn('highlight_range', { buffer: devVars, start: { line: 1, col: 1 }, end: { line: 1, col: 2 } }, 'dev_vars');
    // Back to the user's notes: nothing changed on disk.
    if (kind === 'nvim') await nvim.lua("vim.cmd('edit notes.md')");
    else vim.ex('edit notes.md');
    expect(readFileSync(devVars, 'utf8')).toBe(`${OWNER_SECRET_LINE}\n`);
  });
});
