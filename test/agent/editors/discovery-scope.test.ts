// Narrowing discovery to the editors the user means to share (config.json `discovery`), and what
// tells look-alike editors apart in list_editors (`ui`, `uptime_s` from the wire's `started_at`),
// with real Neovims and Vims: headless and in tmux, named and not, in a directory skipped and not.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readAgentConfig } from '../../../agent/config/agent-config.ts';
import { paths } from '../../../agent/config/paths.ts';
import type { EditorSource } from '../../../agent/editors/editor.ts';
import { processStartedAt } from '../../../agent/editors/process-start.ts';
import { createEditorSource } from '../../../agent/editors/source.ts';
import { listEditorsOutcome, onlineEditor } from '../../../protocol/index.ts';
import { isolatedHome } from '../../helpers/home.ts';
import { startNvim, type NvimFixture } from '../../helpers/nvim.ts';
import { tempDir } from '../../helpers/temp.ts';
import { startTmux, type TmuxScreen } from '../../helpers/tmux.ts';
import { startVimAgent, vimArgs, type VimAgentFixture } from '../../helpers/vim.ts';
import { waitFor } from '../../helpers/wait.ts';

const nowS = (): number => Math.floor(Date.now() / 1000);

describe('config.json discovery', () => {
  it('reads dirs, skip and named_only, and refuses a relative path, an unknown key or a wrong type by name', () => {
    const { env } = isolatedHome('vimrelay-discovery-config-');
    const file = paths(env).config;
    expect(readAgentConfig(file)).toEqual({ tcpEditors: [], socketDirs: null, skipDirs: [], namedOnly: false });
    writeFileSync(file, JSON.stringify({ discovery: { dirs: ['/run/user/1000/'], skip: ['/tmp/ci/../ci2'], named_only: true } }), { mode: 0o600 });
    expect(readAgentConfig(file)).toEqual({ tcpEditors: [], socketDirs: ['/run/user/1000'], skipDirs: ['/tmp/ci2'], namedOnly: true });
    for (const [bad, problem] of [
      ['{"discovery": {"skip": ["~/tmp"]}}', '"~/tmp" is not an absolute path'],
      ['{"discovery": {"dirs": []}}', 'discovery.dirs'],
      ['{"discovery": {"named": true}}', 'named'],
      ['{"discovery": {"named_only": "yes"}}', 'discovery.named_only'],
    ] as const) {
      writeFileSync(file, bad);
      expect(() => readAgentConfig(file)).toThrow(problem);
      expect(() => readAgentConfig(file)).toThrow(file);
    }
  });
});

describe('discovery narrowed by config.json, with real Neovims', () => {
  let source: EditorSource | undefined;
  const nvims: NvimFixture[] = [];

  afterEach(async () => {
    await source?.stop();
    source = undefined;
    await Promise.all(nvims.splice(0).map((n) => n.stop()));
  });

  it('attaches no Neovim under a skipped directory, found or asked for, and the others as before', async () => {
    const root = tempDir('vimrelay-skip-');
    const kept = await startNvim({ listen: join(root, 'nvim-kept', '0') });
    const skipped = await startNvim({ listen: join(root, 'nvim-suite', '0') });
    nvims.push(kept, skipped);
    source = createEditorSource({ dirs: [root], skipDirs: [join(root, 'nvim-suite')], sockets: [], tcpEditors: [], intervalMs: 60_000 });
    // The first scan found both sockets; it attached one and let the other be.
    await source.ready;
    expect(source.list().map((e) => e.info().pid)).toEqual([kept.pid]);
    expect(source.candidates().map((c) => c.address)).toEqual([kept.socket]);
    await expect(source.attach(skipped.socket, AbortSignal.timeout(5_000))).rejects.toThrow('is not a Neovim this agent may attach');
  });

  it('named_only (from the file): lists and reaches only the Neovims the user named, and one as soon as it is named', async () => {
    const { home, env } = isolatedHome('vimrelay-named-only-');
    const dir = join(home, 'socks');
    writeFileSync(paths(env).config, JSON.stringify({ discovery: { dirs: [dir], named_only: true } }), { mode: 0o600 });
    const named = await startNvim({ listen: join(dir, 'nvim-a', '0'), args: ['--cmd', 'let g:vimrelay_name = "proj"'] });
    const unnamed = await startNvim({ listen: join(dir, 'nvim-b', '0') });
    nvims.push(named, unnamed);
    source = createEditorSource({ env, sockets: [], intervalMs: 60_000 });
    await source.ready;
    expect(source.list().map((e) => [e.info().pid, e.chosenName()])).toEqual([[named.pid, 'proj']]);
    // Attached (a candidate), yet out of reach: by id, and when asked for by address.
    expect(source.candidates().map((c) => c.state)).toEqual(['attached', 'attached']);
    expect(source.get(`nvim-${unnamed.pid}`)).toBeUndefined();
    await expect(source.attach(unnamed.socket, AbortSignal.timeout(5_000))).rejects.toThrow('is not a Neovim this agent may attach');
    // What :VimRelayName does (plugin/nvim/lua/vimrelay/init.lua): it is listed at once, even
    // under the name it had already (its cwd's tail, `work`).
    const changed = new Promise<void>((r) => source?.onChange((editors) => editors.length === 2 && r()));
    await unnamed.lua('vim.g.vimrelay_name = "work"; vim.cmd("doautocmd <nomodeline> User VimRelayName")');
    await changed;
    expect(source.get(`nvim-${unnamed.pid}`)?.chosenName()).toBe('work');
  });
});

describe('what tells editors apart: a UI, and how long it has run', () => {
  let source: EditorSource | undefined;
  let screen: TmuxScreen | undefined;
  let headless: NvimFixture | undefined;

  afterAll(async () => {
    await source?.stop();
    await screen?.stop();
    await headless?.stop();
  });

  it('Neovim: headless has no UI, one in a terminal has; both tell when they started, and list_editors says since when', async () => {
    const root = tempDir('vimrelay-ui-');
    const before = nowS();
    headless = await startNvim({ listen: join(root, 'nvim-headless', '0') });
    const { env } = isolatedHome('vimrelay-ui-home-');
    mkdirSync(join(root, 'nvim-tui'));
    screen = startTmux({ command: ['nvim', '--clean', '-n', '-i', 'NONE', '--listen', join(root, 'nvim-tui', '0')], cwd: root, env });
    source = createEditorSource({ dirs: [root], sockets: [], tcpEditors: [], intervalMs: 100 });
    const both = await waitFor(() => {
      const editors = source?.list() ?? [];
      return editors.length === 2 ? editors.map((e) => e.info()) : undefined;
    }, 10_000, 'both Neovims');
    const after = nowS();
    const ofHeadless = both.find((e) => e.pid === headless?.pid);
    const ofTui = both.find((e) => e.pid !== headless?.pid);
    expect(ofHeadless?.ui).toBe(false);
    expect(ofTui?.ui).toBe(true);
    for (const e of [ofHeadless, ofTui]) {
      // Whole seconds: the start is rounded down, so it may read as the second before.
      expect(e?.started_at).toBeGreaterThanOrEqual(before - 1);
      expect(e?.started_at).toBeLessThanOrEqual(after);
    }
    // The relay's view: seconds since the start, as of each list.
    const wire = ofHeadless ?? expect.unreachable();
    const online = onlineEditor('d1', 'laptop', wire, (wire.started_at ?? 0) * 1000);
    expect(online.info.uptime_s).toBe(0);
    const listed = listEditorsOutcome([online], ((wire.started_at ?? 0) + 42) * 1000);
    expect(listed.ok && listed.data).toMatchObject({ editors: [{ ui: false, uptime_s: 42 }] });
  });

  it('processStartedAt: null for no such process', () => {
    expect(processStartedAt(2 ** 22 + 1)).toBeNull();
  });
});

describe('Vim: a terminal, or -es', () => {
  let agent: VimAgentFixture;
  let screen: TmuxScreen | undefined;

  beforeAll(async () => {
    agent = await startVimAgent();
  });

  afterAll(async () => {
    await screen?.stop();
    await agent.stop();
  });

  it('reports ui false for vim -es and true for a Vim in a terminal, with when each started', async () => {
    const before = nowS();
    const silent = await agent.vim();
    const cwd = join(agent.home, 'tui');
    mkdirSync(cwd);
    screen = startTmux({ command: ['vim', ...vimArgs({ normal: true, name: 'tui' })], cwd, env: agent.env });
    const ofSilent = (await agent.editorOf(silent)).info();
    const ofTui = await waitFor(() => agent.registry.list().find((e) => e.info().name === 'tui')?.info(), 10_000, 'the Vim in tmux');
    expect(ofSilent.ui).toBe(false);
    expect(ofTui.ui).toBe(true);
    for (const e of [ofSilent, ofTui]) {
      expect(e.started_at).toBeGreaterThanOrEqual(before - 1);
      expect(e.started_at).toBeLessThanOrEqual(nowS());
    }
  });
});
