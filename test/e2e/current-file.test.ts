// list_editors' current_file is the file the editor shows in its current window, whatever the
// tools or the user did last: a real MCP client against `vimrelay serve --http` with a real
// Neovim and a real Vim. open_file without `show`, and a read of a buffer not yet loaded, load a
// file without showing it (its loading runs the editor's buffer events with that file current
// for a moment, in the autocommand window); with `show` the file is current; so is a buffer the
// user switches to. While Neovim asks the user about a call (its policy here asks before exec), the
// prompt is a floating window the user is put in (agent/editors/nvim/lua/ask.lua), and the current
// file stays the one under it; Vim's prompt is a popup, never the current window.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paths } from '../../agent/config/paths.ts';
import { writePolicy } from '../../agent/policy/file.ts';
import { PERMISSION_CLASSES } from '../../protocol/index.ts';
import { isolatedEnv } from '../helpers/agent-process.ts';
import { callOk, connectMcp } from '../helpers/mcp.ts';
import { startNvim, type NvimFixture } from '../helpers/nvim.ts';
import { startServeHttp, type ServeHttpProcess } from '../helpers/serve-process.ts';
import { startVim, type VimFixture } from '../helpers/vim.ts';
import { waitFor } from '../helpers/wait.ts';

const FILES = { 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'c.txt': 'gamma\n', 'd.txt': 'delta\n' };

interface Listed {
  id: string;
  kind: 'nvim' | 'vim';
  cwd: string;
  current_file: string | null;
}

let serve: ServeHttpProcess;
let nvim: NvimFixture;
let vim: VimFixture;
let client: Client;

async function listed(): Promise<Listed[]> {
  return (await callOk(client, 'list_editors')).editors as Listed[];
}

beforeAll(async () => {
  const env = isolatedEnv();
  const rules = PERMISSION_CLASSES.map((klass) => ({ klass, decision: klass === 'exec' ? ('ask' as const) : ('allow' as const) }));
  writePolicy(paths(env).policy, { rules, never_read: [] });
  const sockets = join(String(env.HOME), 'sockets');
  mkdirSync(sockets);
  nvim = await startNvim({ files: FILES, open: ['a.txt'], listen: join(sockets, 'nvim.current.0') });
  serve = await startServeHttp(['--port', '0', '--discover-dir', sockets], env);
  const vimCwd = join(String(env.HOME), 'vim-work');
  mkdirSync(vimCwd);
  vim = startVim(env, vimCwd, { files: FILES, open: ['a.txt'] });
  client = await connectMcp(serve.mcpUrl, serve.token);
  await waitFor(async () => ((await listed()).length === 2 ? true : undefined), 20_000, () => `both editors in list_editors; serve logged:\n${serve.stderr()}`);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await vim?.stop();
  await serve?.stop();
  await nvim?.stop();
});

describe.each(['nvim', 'vim'] as const)('current_file in list_editors, on %s', (kind) => {
  const editor = async (): Promise<Listed> => {
    const found = (await listed()).find((e) => e.kind === kind);
    if (!found) throw new Error(`no ${kind} in list_editors`);
    return found;
  };
  /** Runs an Ex command as the user would type it. */
  const userTypes = async (command: string): Promise<void> => {
    if (kind === 'nvim') await nvim.client.command(command);
    else vim.ex(command);
  };

  it('stays the shown file after open_file without show, and is the file open_file shows', async () => {
    const { id, cwd } = await editor();
    expect((await editor()).current_file).toBe(join(cwd, 'a.txt'));
    const opened = await callOk(client, 'open_file', { editor: id, path: 'b.txt' });
    expect(opened).toMatchObject({ shown: false });
    expect((await editor()).current_file).toBe(join(cwd, 'a.txt'));
    // A file already loaded, then one shown.
    await callOk(client, 'open_file', { editor: id, path: 'b.txt' });
    expect((await editor()).current_file).toBe(join(cwd, 'a.txt'));
    expect(await callOk(client, 'open_file', { editor: id, path: 'c.txt', show: true })).toMatchObject({ shown: true });
    expect((await editor()).current_file).toBe(join(cwd, 'c.txt'));
  });

  it('stays the shown file after a read that loads a buffer the user only listed', async () => {
    const { id, cwd } = await editor();
    await userTypes('badd d.txt');
    // The first read that finds the buffer loads it (a Vim takes the :badd from its input in its own time).
    const read = await waitFor(async () => {
      const res = (await client.callTool({ name: 'read_buffer', arguments: { editor: id, buffer: 'd.txt' } })) as CallToolResult;
      return res.isError ? undefined : res;
    }, 10_000, 'd.txt to be listed');
    expect(read.structuredContent).toMatchObject({ lines: ['delta'] });
    expect((await editor()).current_file).toBe(join(cwd, 'c.txt'));
  });

  it('follows the user from buffer to buffer', async () => {
    const { cwd } = await editor();
    for (const file of ['b.txt', 'a.txt']) {
      await userTypes(`buffer ${file}`);
      await waitFor(async () => ((await editor()).current_file === join(cwd, file) ? true : undefined), 10_000, `current_file to be ${file}`);
    }
  });
});

it('on nvim, stays the user\'s file while a prompt asks about a call, and after it is answered', async () => {
  const { id, cwd } = (await listed()).find((e) => e.kind === 'nvim')!;
  const nvimFile = async (): Promise<string | null | undefined> => (await listed()).find((e) => e.id === id)?.current_file;
  const file = await nvimFile();
  expect(file?.startsWith(cwd)).toBe(true);
  const asked = client.callTool({ name: 'run_command', arguments: { editor: id, commands: ['echo 1'] } });
  // The prompt's window is current: what the user sees and types into.
  await waitFor(async () => ((await nvim.client.request('nvim_win_get_config', [0])) as { relative: string }).relative !== '' || undefined, 10_000, 'the prompt');
  // Its WinEnter announcement, if any, reaches the agent before the answer to a call made after it.
  await callOk(client, 'get_state_brief', { editor: id });
  expect(await nvimFile()).toBe(file);
  await nvim.client.input('d');
  expect((await asked).isError).toBe(true);
  expect(await nvimFile()).toBe(file);
});
