// The installable package as a user on another machine gets it: `npm pack` makes a tarball of
// the agent bundled into JavaScript (its npm dependencies in it) and the editor plugins only;
// installed into an empty prefix with `--omit=dev` (what the README's one command does, `npm
// install -g`, but in a prefix of its own), its `vimrelay` runs with Node alone: `--help`, `serve
// --stdio` listing the tools to a real MCP client and reading a real Neovim buffer, and `vimrelay
// pair` against a test relay, approved by its owner. And the same package made straight from the
// git repository (the README's other way, `npm pack git+…`: npm clones it, installs its build
// tools and builds it), installed globally into a prefix as `npm install -g` does. Needs the
// package registry, as any install does.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayCredentials } from '../../agent/config/credentials.ts';
import { paths } from '../../agent/config/paths.ts';
import { TOOLS } from '../../protocol/index.ts';
import { ROOT } from '../../scripts/local-relay.ts';
import { isolatedEnv } from '../helpers/agent-process.ts';
import { callOk, connectStdio } from '../helpers/mcp.ts';
import { startNvim, type NvimFixture } from '../helpers/nvim.ts';
import { withRelay, type TestRelay } from '../helpers/relay.ts';
import { waitFor } from '../helpers/wait.ts';
import { tempDir } from '../helpers/temp.ts';

const work = tempDir('vimrelay-package-');
const prefix = join(work, 'prefix');
let tarball = '';
let files: string[] = [];
/** The tarball's size in bytes. */
let size = 0;

function npm(args: string[], cwd: string): string {
  const r = spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: 300_000, env: { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false' } });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

beforeAll(() => {
  // --ignore-scripts: `npm test` built dist/ already, and a rebuild (prepare) would take it away
  // from under the other test files while they run the CLI.
  const packed = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work], ROOT)) as { filename: string; size: number; files: { path: string }[] }[];
  tarball = join(work, packed[0]?.filename ?? '');
  files = (packed[0]?.files ?? []).map((f) => f.path);
  size = packed[0]?.size ?? 0;
  mkdirSync(prefix);
  npm(['install', '--prefix', prefix, '--omit=dev', '--no-package-lock', tarball], work);
}, 360_000);

describe('the packed agent', () => {
  it('holds compiled JavaScript, the Lua it installs into Neovim and the editor plugins, and nothing of the relay or the tests', () => {
    expect(files).toContain('bin/vimrelay.js');
    expect(files).toContain('dist/vimrelay.mjs');
    expect(files).toContain('dist/lua/core.lua');
    expect(files).toContain('plugin/vim/autoload/vimrelay.vim');
    expect(files).toContain('plugin/vim/doc/tags');
    expect(files).toContain('plugin/nvim/doc/tags');
    expect(files).toContain('plugin/nvim/lua/vimrelay/health.lua');
    const outside = files.filter((f) => !/^(bin|dist|plugin)\//.test(f) && !['package.json', 'README.md', 'LICENSE'].includes(f));
    expect(outside).toEqual([]);
    expect(files.filter((f) => f.endsWith('.ts'))).toEqual([]);
    expect(files.filter((f) => f.startsWith('dist/worker/') || f.startsWith('dist/test/'))).toEqual([]);
  });

  it('is as big as the README says, within a fifth, and git ignores it in a clone', () => {
    const stated = /vimrelay-0\.1\.0\.tgz, about ([\d.]+) MB/.exec(readFileSync(join(ROOT, 'README.md'), 'utf8'))?.[1];
    expect(stated, 'the README states the size').toBeDefined();
    const mb = size / 1_000_000;
    console.log(`the package: ${size} bytes; the README says about ${stated} MB`);
    expect(Math.abs(mb - Number(stated)) / mb).toBeLessThanOrEqual(0.2);
    // `npm pack` in a clone leaves the tarball there: git ignores it.
    expect(spawnSync('git', ['check-ignore', '-q', 'vimrelay-0.1.0.tgz'], { cwd: ROOT }).status).toBe(0);
  });

  it('installs nothing but itself and ws\'s optional native helper: what it runs is bundled, with its licenses', () => {
    const installed = readdirSync(join(prefix, 'node_modules')).filter((name) => !name.startsWith('.'));
    // The tools that build, test and run the relay stay behind, and so does the `neovim` client
    // the tests drive editors with (the agent speaks msgpack-RPC itself); zod, the MCP SDK and ws
    // are in dist/ (scripts/build.mjs).
    expect(installed.sort()).toEqual(['bufferutil', 'node-gyp-build', 'vimrelay']);
    expect(existsSync(join(prefix, 'node_modules', '.bin', 'vimrelay'))).toBe(true);
    const licenses = readFileSync(join(prefix, 'node_modules', 'vimrelay', 'dist', 'THIRD-PARTY-LICENSES.md'), 'utf8');
    for (const bundled of ['zod', '@modelcontextprotocol/server', 'ws']) expect(licenses).toMatch(new RegExp(`^## ${bundled} \\S+ \\(\\S+\\)$`, 'm'));
  });

  it('runs `vimrelay --help` with Node alone', () => {
    const r = spawnSync(join(prefix, 'node_modules', '.bin', 'vimrelay'), ['--help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('usage: vimrelay <command>');
  });

  describe('serve --stdio', () => {
    let nvim: NvimFixture;
    let sockets: string;
    beforeAll(async () => {
      // A socket name discovery looks for, in a directory of its own that serve is told to scan.
      sockets = tempDir('vimrelay-pkg-');
      nvim = await startNvim({ files: { 'installed.txt': 'from the package ü\n' }, open: ['installed.txt'], listen: join(sockets, 'nvim.pkg.0') });
    });
    afterAll(() => nvim?.stop());

    it('lists the tools to an MCP client and reads a real Neovim buffer', async () => {
      const env = isolatedEnv();
      const serve = await connectStdio(join(prefix, 'node_modules', '.bin', 'vimrelay'), ['serve', '--stdio', '--discover-dir', sockets], env);
      try {
        const { tools } = await serve.client.listTools();
        expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
        await waitFor(async () => (((await callOk(serve.client, 'list_editors')).count as number) === 1 ? true : undefined), 15_000, 'the editor');
        expect((await callOk(serve.client, 'read_buffer', {})).lines).toEqual(['from the package ü']);
      } finally {
        await serve.client.close();
      }
    });
  });

  describe('made from the git repository', () => {
    // What was committed (HEAD), as a clone on another machine has it.
    const fromGit = tempDir('vimrelay-package-git-');
    const globalPrefix = join(fromGit, 'global');
    let gitFiles: string[] = [];
    beforeAll(() => {
      const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', fromGit, `git+file://${ROOT}`], fromGit)) as { filename: string; files: { path: string }[] }[];
      gitFiles = (packed[0]?.files ?? []).map((f) => f.path);
      npm(['install', '-g', '--prefix', globalPrefix, join(fromGit, packed[0]?.filename ?? '')], fromGit);
    }, 360_000);

    it('is built by npm on the way: the same compiled JavaScript and plugins, and a `vimrelay` that runs', () => {
      for (const file of ['bin/vimrelay.js', 'dist/vimrelay.mjs', 'dist/lua/core.lua', 'plugin/vim/autoload/vimrelay.vim']) expect(gitFiles).toContain(file);
      expect(gitFiles.filter((f) => f.endsWith('.ts') || !/^(bin|dist|plugin)\/|^(package\.json|README\.md|LICENSE)$/.test(f))).toEqual([]);
      const r = spawnSync(join(globalPrefix, 'bin', 'vimrelay'), ['--help'], { encoding: 'utf8' });
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('usage: vimrelay <command>');
    });
  });

  describe('pair', () => {
    let relay: TestRelay;
    beforeAll(async () => {
      relay = await withRelay();
    }, 90_000);
    afterAll(() => relay?.stop());

    it('pairs this machine with a relay once its owner approves', async () => {
      const env = isolatedEnv();
      const proc = spawn(join(prefix, 'node_modules', '.bin', 'vimrelay'), ['pair', relay.url, '--name', 'from-package'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      proc.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
      const code = await waitFor(async () => /Code: ([A-Z]{4}-[A-Z]{4})/.exec(out)?.[1], 30_000, () => `a code; it wrote: ${out}`);
      await relay.decidePairing(code, true);
      expect(await exited).toBe(0);
      expect(relayCredentials(paths(env).credentials, relay.url).device_credential).toMatch(/^vrd_/);
    });
  });
});
