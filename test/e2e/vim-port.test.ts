// A TCP port for Vims (`--vim-port`), for a Vim whose vimrc names it (g:vimrelay_port): the real
// `vimrelay serve --http` and a real Vim that connects there, through the same handshake as on
// the unix socket (the agent proves it holds the token first), with no address file to read.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { vimFiles } from '../../agent/editors/vim/listener.ts';
import { freePort } from '../../scripts/local-relay.ts';
import { isolatedEnv, runCli } from '../helpers/agent-process.ts';
import { callOk, connectMcp } from '../helpers/mcp.ts';
import { startServeHttp, type ServeHttpProcess } from '../helpers/serve-process.ts';
import { startVim, type VimFixture } from '../helpers/vim.ts';
import { waitFor } from '../helpers/wait.ts';

let serve: ServeHttpProcess | undefined;
let vim: VimFixture | undefined;
afterAll(async () => {
  await vim?.stop();
  await serve?.stop();
});

it('listens for Vims on the port given, and a Vim with g:vimrelay_port connects there without the address file', async () => {
  const env = isolatedEnv();
  const port = await freePort();
  serve = await startServeHttp(['--port', '0', '--vim-port', String(port), '--discover-dir', String(env.XDG_RUNTIME_DIR)], env);
  const files = vimFiles(env);
  // The unix socket is there as well: the port is an addition, for this Vim's vimrc.
  await waitFor(() => (existsSync(files.address) ? true : undefined), 10_000, 'the address file');
  expect(readFileSync(files.address, 'utf8').trim()).toBe(`unix:${files.socket}`);
  rmSync(files.address);
  const cwd = join(String(env.HOME), 'work');
  mkdirSync(cwd);
  vim = startVim(env, cwd, { files: { 'a.txt': 'fixed port\n' }, open: ['a.txt'], cmds: [`let g:vimrelay_port = ${port}`] });
  const client = await connectMcp(serve.mcpUrl, serve.token);
  const editors = await waitFor(async () => {
    const listed = (await callOk(client, 'list_editors')).editors as { kind: string }[];
    return listed.some((e) => e.kind === 'vim') ? listed : undefined;
  }, 20_000, 'the Vim to connect');
  expect(editors).toHaveLength(1);
  expect((await callOk(client, 'read_buffer', {})).lines).toEqual(['fixed port']);
  await client.close();
});

it('refuses a --vim-port that is not a port', () => {
  const out = runCli(['serve', '--http', '--vim-port', 'seventy'], isolatedEnv());
  expect(out.status).not.toBe(0);
  expect(out.stderr).toMatch(/--vim-port must be a port number/);
});
