// Discovery on a real file system with real Neovims: the socket layouts Neovim uses, under
// injected roots; editors appearing, deduplicated by pid, refreshed and dropped; explicit and TCP
// addresses; sockets that are not Neovim skipped and backed off from.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Editor, EditorSource } from '../../../../agent/editors/editor.ts';
import { defaultSocketAddresses, defaultSocketDirs, findSockets, scanSockets, type ScanCache } from '../../../../agent/editors/nvim/discovery.ts';
import { createEditorSource } from '../../../../agent/editors/source.ts';
import { startNvim, type NvimFixture } from '../../../helpers/nvim.ts';
import { fakeSocket, waitFor, type FakeSocket } from '../../../helpers/editors.ts';

describe('findSockets', () => {
  let root: string;
  const fakes: FakeSocket[] = [];
  const socketAt = async (rel: string): Promise<string> => {
    fakes.push(await fakeSocket(join(root, rel)));
    return join(root, rel);
  };
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'vimrelay-scan-'));
  });
  afterAll(async () => {
    await Promise.all(fakes.map((f) => f.close()));
    rmSync(root, { recursive: true, force: true });
  });

  it('finds the layouts Neovim uses, up to three levels deep, and nothing else', async () => {
    const expected = [
      await socketAt('scan/nvim.4242.0'), // $XDG_RUNTIME_DIR/nvim.PID.0 (0.9+)
      await socketAt('scan/nvimAbC123/0'), // /tmp/nvimXXXXXX/0 (0.7)
      await socketAt('scan/nvim.user/XyZ789/nvim.77.0'), // /tmp/nvim.USER/XXXXXX/nvim.PID.0 (0.9+ without XDG_RUNTIME_DIR)
      await socketAt('scan/other/nvim.sock'),
      await socketAt('scan/other/deeper/nvim.sock'),
    ];
    await socketAt('scan/tmux-1000/default');
    await socketAt('scan/a/b/c/nvim.too-deep');
    writeFileSync(join(root, 'scan/nvim.regular-file'), '');
    mkdirSync(join(root, 'elsewhere'));
    await socketAt('elsewhere/nvim.via-link');
    symlinkSync(join(root, 'elsewhere'), join(root, 'scan/nvimlink'));
    const found = await findSockets([join(root, 'scan'), join(root, 'scan/'), join(root, 'missing')]);
    expect(found.sort()).toEqual(expected.sort());
  });

  it('spends a bounded entry budget on nvim-looking directories first', async () => {
    const dir = join(root, 'budget');
    mkdirSync(join(dir, 'plain'), { recursive: true });
    await socketAt('budget/plain/nvim.sock');
    await socketAt('budget/nvimXyz/0');
    // Two root entries, then one more: the nvim-looking directory's socket, not plain's.
    expect(await findSockets([dir], { maxEntries: 3 })).toEqual([join(dir, 'nvimXyz/0')]);
    expect((await findSockets([dir], { maxEntries: 4 })).sort()).toEqual([join(dir, 'nvimXyz/0'), join(dir, 'plain/nvim.sock')]);
  });

  it('reads only the roots and the nvim paths in a shallow scan', async () => {
    const dir = join(root, 'shallow');
    const onPaths = [await socketAt('shallow/nvim.1.0'), await socketAt('shallow/nvimQwe123/0'), await socketAt('shallow/nvim.user/Abc/nvim.2.0')];
    const off = await socketAt('shallow/other/nvim.sock');
    expect((await findSockets([dir], { deep: false })).sort()).toEqual([...onPaths].sort());
    expect((await findSockets([dir])).sort()).toEqual([...onPaths, off].sort());
  });

  it('with a cache, reads again only the directories that changed, and finds what a scan without one finds', async () => {
    const dir = join(root, 'cached');
    const stays = await socketAt('cached/other/deeper/nvim.sock');
    const goes = await socketAt('cached/nvimAbc/0');
    mkdirSync(join(dir, 'quiet/inner'), { recursive: true });
    const part = join(root, 'part');
    const many = await Promise.all([1, 2, 3, 4, 5].map((n) => socketAt(`part/x/d${n}/nvim.sock`)));
    // A directory changed in the last 2 s is read every time (discovery.ts RACY_MS): let these settle.
    await new Promise((r) => setTimeout(r, 2_100));
    const cache: ScanCache = new Map();
    expect((await scanSockets([dir], { cache })).sockets.sort()).toEqual([goes, stays].sort());
    const quiet = cache.get(join(dir, 'quiet'));
    expect(quiet).toBeDefined();
    // The root and the nvim paths are read every time, whatever their stamps say.
    expect([cache.has(dir), cache.has(join(dir, 'nvimAbc'))]).toEqual([false, false]);
    // A socket made below an unchanged directory, one removed; settled too, so that what finds
    // them is the changed stamps, not the 2 s rule.
    const added = await socketAt('cached/other/deeper/nvim.new');
    rmSync(goes);
    await new Promise((r) => setTimeout(r, 2_100));
    const again = await scanSockets([dir], { cache });
    expect(again.sockets.sort()).toEqual([stays, added].sort());
    expect(again.sockets.sort()).toEqual((await findSockets([dir])).sort());
    expect(cache.get(join(dir, 'quiet'))).toBe(quiet);
    // A directory read in part (the budget ran out in it: x, 2 of its 5 entries) is read further
    // when a later scan has more budget left there.
    const partial: ScanCache = new Map();
    expect((await scanSockets([part], { cache: partial, maxEntries: 3 })).sockets).toEqual([]);
    expect((await scanSockets([part], { cache: partial })).sockets.sort()).toEqual(many.sort());
    // A deep scan forgets what it no longer reaches.
    rmSync(join(dir, 'quiet'), { recursive: true });
    await scanSockets([dir], { cache });
    expect([...cache.keys()].filter((path) => path.startsWith(join(dir, 'quiet')))).toEqual([]);
  });

  it('defaults to $XDG_RUNTIME_DIR, $TMPDIR and /tmp, and to $NVIM and $NVIM_LISTEN_ADDRESS', () => {
    expect(defaultSocketDirs({ XDG_RUNTIME_DIR: '/run/user/7', TMPDIR: '/var/tmp' }, {})).toEqual(['/run/user/7', '/var/tmp', '/tmp']);
    expect(defaultSocketDirs({ TMPDIR: '/tmp' }, {})).toEqual(['/tmp']);
    // Without the variables, the directories derived in their place (runtime-dirs.ts).
    expect(defaultSocketDirs({}, { runtime: '/run/user/7', temp: '/var/folders/x/T' })).toEqual(['/run/user/7', '/var/folders/x/T', '/tmp']);
    expect(defaultSocketDirs({ XDG_RUNTIME_DIR: '/xdg' }, { runtime: '/run/user/7' })).toEqual(['/xdg', '/tmp']);
    expect(defaultSocketAddresses({ NVIM: '/run/nvim.1.0', NVIM_LISTEN_ADDRESS: '/run/nvim.1.0' })).toEqual(['/run/nvim.1.0']);
    expect(defaultSocketAddresses({ NVIM_LISTEN_ADDRESS: '127.0.0.1:6666' })).toEqual(['127.0.0.1:6666']);
    expect(defaultSocketAddresses({})).toEqual([]);
  });
});

describe('createEditorSource', () => {
  let root: string;
  let source: EditorSource | undefined;
  const nvims: NvimFixture[] = [];
  const start = async (listen: string): Promise<NvimFixture> => {
    const nvim = await startNvim({ listen });
    nvims.push(nvim);
    return nvim;
  };
  const listed = (pid: number): ((editors?: readonly Editor[]) => Editor | undefined) => (editors = source?.list()) =>
    editors?.find((e) => e.id === `nvim-${pid}`);
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'vimrelay-source-'));
  });
  afterEach(async () => {
    await source?.stop();
    source = undefined;
    await Promise.all(nvims.splice(0).map((n) => n.stop()));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('finds Neovims started later in each layout by watching, and drops them when they exit or are killed', async () => {
    const dir = join(root, 'layouts');
    mkdirSync(dir);
    // No periodic scan during the test: only the directory watches can find them.
    source = createEditorSource({ dirs: [dir], sockets: [], intervalMs: 600_000 });
    const snapshots: string[][] = [];
    source.onChange((editors) => snapshots.push(editors.map((e) => e.id)));

    const runtime = await start(join(dir, 'nvim.4242.0'));
    const v07 = await start(join(dir, 'nvimAbC123/0'));
    const nested = await start(join(dir, 'nvim.user/XyZ789/nvim.77.0'));
    for (const nvim of [runtime, v07, nested]) {
      const editor = await waitFor(() => listed(nvim.pid)(), 10_000, `nvim ${nvim.pid}`);
      expect(editor.info()).toMatchObject({ kind: 'nvim', pid: nvim.pid, cwd: nvim.cwd });
      expect(source.get(editor.id)).toBe(editor);
    }
    expect(snapshots.at(-1)?.sort()).toEqual([runtime, v07, nested].map((n) => `nvim-${n.pid}`).sort());

    await v07.kill();
    await waitFor(() => (listed(v07.pid)() ? undefined : true), 10_000, 'killed nvim dropped');
    await nested.stop();
    await waitFor(() => (listed(nested.pid)() ? undefined : true), 10_000, 'exited nvim dropped');
    expect(source.list().map((e) => e.id)).toEqual([`nvim-${runtime.pid}`]);
  });

  it('keeps one editor per Neovim when it listens on several sockets', async () => {
    const dir = join(root, 'twins');
    const nvim = await start(join(dir, 'nvim.first.0'));
    await nvim.lua('vim.fn.serverstart(...)', join(dir, 'nvim.second.0'));
    await nvim.lua('_G.opened = 0; vim.api.nvim_create_autocmd("ChanOpen", { callback = function() _G.opened = _G.opened + 1 end })');
    const count = (): Promise<number> => nvim.lua<number>('return #vim.api.nvim_list_chans()');
    const before = await count();
    source = createEditorSource({ dirs: [dir], sockets: [], intervalMs: 100 });
    const adds: number[] = [];
    source.onChange((editors) => adds.push(editors.length));
    // Both sockets probed (a handshake and an attach each: four channels opened), and the twin
    // connection closed again (one channel more than before: the kept editor's).
    await waitFor(
      async () => ((await nvim.lua<number>('return _G.opened')) >= 4 && (await count()) === before + 1 ? true : undefined),
      10_000,
      'both sockets probed',
    );
    expect(source.list().map((e) => e.id)).toEqual([`nvim-${nvim.pid}`]);
    expect(adds).toEqual([1]);
  });

  it('attaches explicit addresses outside the scanned roots, and TCP ones only when the user configured them', async () => {
    const configured = await freePort();
    const unconfigured = await freePort();
    const tcp = await start(`127.0.0.1:${configured}`);
    const stray = await start(`127.0.0.1:${unconfigured}`);
    const unix = await start(join(root, 'explicit', 'custom.sock'));
    source = createEditorSource({ dirs: [], sockets: [`127.0.0.1:${unconfigured}`, unix.socket], tcpEditors: [`127.0.0.1:${configured}`], intervalMs: 100 });
    await waitFor(() => listed(tcp.pid)(), 10_000, 'tcp nvim');
    await waitFor(() => listed(unix.pid)(), 10_000, 'unix nvim');
    // Scans go on: the TCP Neovim nobody configured is never attached nor listed.
    await new Promise((r) => setTimeout(r, 300));
    expect(listed(stray.pid)()).toBeUndefined();
    expect(source.candidates().map((c) => c.address).sort()).toEqual([`127.0.0.1:${configured}`, unix.socket].sort());
  });

  it('skips sockets that are not Neovim, backing off instead of re-probing every tick', async () => {
    const dir = join(root, 'fake');
    const fake = await fakeSocket(join(dir, 'nvim.fake.0'));
    const nvim = await start(join(dir, 'nvim.real.0'));
    source = createEditorSource({ dirs: [dir], sockets: [], intervalMs: 50 });
    await waitFor(() => listed(nvim.pid)(), 10_000, 'real nvim');
    await new Promise((r) => setTimeout(r, 600)); // about a dozen ticks
    expect(source.list()).toHaveLength(1);
    expect(fake.connections()).toBeGreaterThanOrEqual(1);
    expect(fake.connections()).toBeLessThanOrEqual(2);
    await fake.close();
  });

  it('between deep scans keeps the sockets found off the nvim paths, and probes them again when due', async () => {
    const dir = join(root, 'kept');
    const address = join(dir, 'other', 'nvim.fake.0');
    const fake = await fakeSocket(address);
    // No periodic (deep) scan but the first one during the test: the retries are shallow scans.
    source = createEditorSource({ dirs: [dir], sockets: [], intervalMs: 600_000 });
    await waitFor(() => (fake.connections() >= 1 ? true : undefined), 10_000, 'the first probe');
    await waitFor(() => (fake.connections() >= 2 ? true : undefined), 15_000, 'a probe on the backoff');
    expect(source.candidates().map((c) => c.address)).toContain(address);
    await fake.close();
  });

  it('announces info changes and detaches everything on stop, leaving the editors running', async () => {
    const dir = join(root, 'info');
    const nvim = await start(join(dir, 'nvim.info.0'));
    const channels = await nvim.lua<number>('return #vim.api.nvim_list_chans()');
    source = createEditorSource({ dirs: [dir], sockets: [], intervalMs: 100 });
    await waitFor(() => listed(nvim.pid)(), 10_000, 'nvim');
    const cwds: string[] = [];
    source.onChange((editors) => cwds.push(listed(nvim.pid)(editors)?.info().cwd ?? ''));
    mkdirSync(join(nvim.cwd, 'moved'));
    await nvim.client.command('cd moved');
    await waitFor(() => (cwds.includes(join(nvim.cwd, 'moved')) ? true : undefined), 10_000, 'cwd change announced');
    await source.stop();
    source = undefined;
    expect(await nvim.lua('return vim.fn.getpid()')).toBe(nvim.pid);
    await waitFor(async () => ((await nvim.lua('return #vim.api.nvim_list_chans()')) === channels ? true : undefined), 10_000, 'channel closed');
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
