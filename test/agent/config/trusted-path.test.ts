// checkTrusted on a real file system, and the directories a process started without
// $XDG_RUNTIME_DIR or $TMPDIR derives: private and sticky directories pass, a directory others may
// write to fails, symlinks are followed only through trusted places and their targets checked from
// `/` again, and what is not a socket, or not the user's, fails. As root, also entries owned by a
// second account (uid 65534).
import { chmodSync, chownSync, lchownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveDirs } from '../../../agent/config/runtime-dirs.ts';
import { checkTrusted, ownUid } from '../../../agent/config/trusted-path.ts';
import { itAsOther, OTHER_UID } from '../../helpers/other-user.ts';

let root: string;
const servers: Server[] = [];

/** A listening unix socket at `path`. */
async function socketAt(path: string): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(path, resolve));
  servers.push(server);
  return path;
}

function dir(rel: string, mode: number): string {
  const path = join(root, rel);
  mkdirSync(path, { recursive: true });
  chmodSync(path, mode);
  return path;
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'vimrelay-trust-'));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  rmSync(root, { recursive: true, force: true });
});

describe('checkTrusted', () => {
  it('trusts the user\'s socket in a private directory, and in a sticky one anyone may write to', async () => {
    const private_ = await socketAt(join(dir('private', 0o700), 's'));
    expect(await checkTrusted(private_, 'socket')).toEqual({ ok: true, path: private_ });
    const sticky = await socketAt(join(dir('sticky', 0o1777), 's'));
    expect(await checkTrusted(sticky, 'socket')).toEqual({ ok: true, path: sticky });
    expect(await checkTrusted(dir('private/sub', 0o700), 'directory')).toMatchObject({ ok: true });
  });

  it('refuses a socket in a directory others may write to (group or world, not sticky), and any below it', async () => {
    for (const [rel, mode] of [['world', 0o777], ['group', 0o770]] as const) {
      const socket = await socketAt(join(dir(rel, mode), 's'));
      expect(await checkTrusted(socket, 'socket')).toMatchObject({ ok: false, reason: expect.stringContaining('writable by others') });
      const deeper = await socketAt(join(dir(`${rel}/below`, 0o700), 's'));
      expect(await checkTrusted(deeper, 'socket')).toMatchObject({ ok: false });
    }
    expect(await checkTrusted(dir('private/wide', 0o757), 'directory')).toMatchObject({ ok: false });
  });

  it('refuses what is not a socket, or not there', async () => {
    const file = join(dir('files', 0o700), 'plain');
    writeFileSync(file, '');
    expect(await checkTrusted(file, 'socket')).toMatchObject({ ok: false, reason: expect.stringContaining('not a socket') });
    expect(await checkTrusted(join(root, 'files', 'missing'), 'socket')).toMatchObject({ ok: false, reason: expect.stringContaining('ENOENT') });
    expect(await checkTrusted(file, 'directory')).toMatchObject({ ok: false });
  });

  it('follows a symlink only to check its target from / again', async () => {
    const target = await socketAt(join(dir('real', 0o700), 's'));
    symlinkSync(join(root, 'real'), join(dir('links', 0o700), 'to-real'));
    expect(await checkTrusted(join(root, 'links', 'to-real', 's'), 'socket')).toEqual({ ok: true, path: target });
    // A relative link to a socket in a world-writable directory: the target's directory fails.
    const exposed = await socketAt(join(dir('exposed', 0o777), 's'));
    symlinkSync('../exposed/s', join(root, 'links', 'to-exposed'));
    expect(await checkTrusted(join(root, 'links', 'to-exposed'), 'socket')).toMatchObject({ ok: false, reason: expect.stringContaining(join(root, 'exposed')) });
    expect(exposed).toBe(join(root, 'exposed', 's'));
    symlinkSync('loop', join(root, 'links', 'loop'));
    expect(await checkTrusted(join(root, 'links', 'loop'), 'socket')).toMatchObject({ ok: false, reason: expect.stringContaining('too many symlinks') });
  });

  itAsOther('refuses what a second account owns: its socket, its directory on the way, its symlink in a sticky directory', async () => {
    const theirSocket = await socketAt(join(dir('sticky2', 0o1777), 'theirs'));
    chownSync(theirSocket, OTHER_UID, OTHER_UID);
    expect(await checkTrusted(theirSocket, 'socket')).toMatchObject({ ok: false, reason: expect.stringContaining(`owned by uid ${OTHER_UID}`) });
    const theirDir = dir('their-dir', 0o755);
    const mine = await socketAt(join(theirDir, 'mine'));
    chownSync(theirDir, OTHER_UID, OTHER_UID);
    expect(await checkTrusted(mine, 'socket')).toMatchObject({ ok: false, reason: expect.stringContaining(`${theirDir} is owned by uid ${OTHER_UID}`) });
    const good = await socketAt(join(dir('good', 0o700), 's'));
    const link = join(root, 'sticky2', 'link');
    symlinkSync(good, link);
    lchownSync(link, OTHER_UID, OTHER_UID);
    expect(await checkTrusted(link, 'socket')).toMatchObject({ ok: false, reason: expect.stringContaining('symlink owned by uid') });
  });
});

describe('deriveDirs', () => {
  it('takes <runUser>/<uid> when it is the user\'s directory, and nothing on Linux for the temp directory', () => {
    const runUser = dir('run-user', 0o755);
    expect(deriveDirs(ownUid(), runUser, 'linux')).toEqual({});
    mkdirSync(join(runUser, String(ownUid())), { mode: 0o700 });
    expect(deriveDirs(ownUid(), runUser, 'linux')).toEqual({ runtime: join(runUser, String(ownUid())) });
    // A directory named after a uid but owned by another is not that user's runtime directory.
    const other = ownUid() + 1;
    mkdirSync(join(runUser, String(other)), { mode: 0o700 });
    expect(deriveDirs(other, runUser, 'linux')).toEqual({});
  });
});
