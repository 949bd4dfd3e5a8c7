// Editors that are not the user's, by attack: a second local account (uid 65534) runs real
// Neovims in a shared sticky directory (as /tmp is) and in a directory it owns, and may write to
// a directory where the user's own Neovim listens. Discovery attaches none of them and lists none
// as a candidate, connect_editor refuses each with the same answer as an address where nothing
// listens, and the user's own Neovim in the sticky directory is attached (so the refusals are for
// whose the sockets are). Runs only as root (CI does): only root can act as a second account.
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectEditor, parseArgs, type ToolOutcome } from '../../../../protocol/index.ts';
import { runConnectEditor } from '../../../../agent/agent-tools/connect-editor.ts';
import { checkTrusted } from '../../../../agent/config/trusted-path.ts';
import type { EditorSource } from '../../../../agent/editors/editor.ts';
import { createEditorSource } from '../../../../agent/editors/source.ts';
import type { Logger } from '../../../../agent/log.ts';
import { startNvim, type NvimFixture } from '../../../helpers/nvim.ts';
import { describeAsOther, OTHER_UID, spawnAsOther } from '../../../helpers/other-user.ts';
import { listeningOn, waitFor } from '../../../helpers/wait.ts';

/** A Neovim of uid 65534 listening at `listen`; resolves once the socket is there. */
async function foreignNvim(listen: string): Promise<ChildProcess> {
  const proc = spawnAsOther('nvim', ['--headless', '--clean', '-n', '-i', 'NONE', '--listen', listen], {
    env: { HOME: '/nonexistent', PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdio: 'ignore',
  });
  await listeningOn(listen, 10_000, `the foreign Neovim's socket ${listen}`);
  return proc;
}

/** connect_editor with arguments validated as the dispatcher would. */
async function connect(source: EditorSource, args: Record<string, unknown>): Promise<ToolOutcome> {
  const parsed = parseArgs(connectEditor, args);
  if (!parsed.ok) return parsed.outcome;
  return runConnectEditor(source, parsed.args, AbortSignal.timeout(10_000));
}

describeAsOther('editors that are not the user\'s', () => {
  let root: string;
  let source: EditorSource;
  let mine: NvimFixture;
  let mineInOpenDir: NvimFixture;
  let mineInTheirDir: NvimFixture;
  const foreign: ChildProcess[] = [];
  const debug: { msg: string; fields: Record<string, unknown> | undefined }[] = [];
  const addresses: Record<string, string> = {};

  beforeAll(async () => {
    // A root the other account can enter, holding a shared sticky directory (as /tmp is), a
    // directory that account owns, and a directory anyone may write to that is not sticky.
    root = mkdtempSync(join(tmpdir(), 'vimrelay-foreign-'));
    chmodSync(root, 0o755);
    const shared = join(root, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const theirs = join(root, 'theirs');
    mkdirSync(theirs);
    chownSync(theirs, OTHER_UID, OTHER_UID);
    const open = join(root, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    addresses.sharedForeign = join(shared, 'nvim.6666.0');
    addresses.theirDirForeign = join(theirs, 'nvimAbCdEf', '0');
    mkdirSync(join(theirs, 'nvimAbCdEf'));
    chownSync(join(theirs, 'nvimAbCdEf'), OTHER_UID, OTHER_UID);
    foreign.push(await foreignNvim(addresses.sharedForeign), await foreignNvim(addresses.theirDirForeign));
    // The user's own Neovims: in the sticky directory (trusted), in the open directory and in the
    // other account's directory (where that account could swap the socket for its own).
    mine = await startNvim({ listen: join(shared, 'nvim.mine.0') });
    mineInOpenDir = await startNvim({ listen: join(open, 'nvim.mine.0') });
    mineInTheirDir = await startNvim({ listen: join(theirs, 'nvim.mine.0') });
    const logger: Logger = { debug: (msg, fields) => debug.push({ msg, fields }), info() {}, warn() {}, error() {} };
    source = createEditorSource({ dirs: [root], sockets: [], tcpEditors: [], intervalMs: 100, logger });
  }, 60_000);

  afterAll(async () => {
    await source?.stop();
    for (const p of foreign) p.kill('SIGKILL');
    await Promise.all([mine, mineInOpenDir, mineInTheirDir].map((n) => n?.stop()));
    rmSync(root, { recursive: true, force: true });
  });

  it('checks each socket and every directory on its path, as ssh-agent does', async () => {
    expect(await checkTrusted(mine.socket, 'socket')).toEqual({ ok: true, path: mine.socket });
    for (const path of [addresses.sharedForeign, addresses.theirDirForeign, mineInOpenDir.socket, mineInTheirDir.socket]) {
      expect(await checkTrusted(String(path), 'socket')).toMatchObject({ ok: false });
    }
  });

  it('attaches only the user\'s own Neovim, lists no other as a candidate, and logs each refusal once', async () => {
    await waitFor(() => (source.list().some((e) => e.info().pid === mine.pid) ? true : undefined), 10_000, 'the user\'s Neovim');
    // Several more scans (one every 100 ms): still none of the others.
    await waitFor(() => (source.candidates().length > 0 ? true : undefined), 10_000, 'the first scan');
    await new Promise((r) => setTimeout(r, 500));
    expect(source.list().map((e) => e.info().pid)).toEqual([mine.pid]);
    expect(source.candidates().map((c) => c.address)).toEqual([mine.socket]);
    const refused = debug.filter((d) => d.msg.includes('not the user\'s own')).map((d) => d.fields?.address);
    expect([...refused].sort()).toEqual([addresses.sharedForeign, addresses.theirDirForeign, mineInOpenDir.socket, mineInTheirDir.socket].sort());
  });

  it('connect_editor refuses each of them with the answer a missing socket gets, and attaches none', async () => {
    const answers = [];
    for (const address of [addresses.sharedForeign, addresses.theirDirForeign, mineInOpenDir.socket, mineInTheirDir.socket, join(root, 'shared', 'nothing-here')]) {
      const outcome = await connect(source, { socket_path: address });
      if (outcome.ok) throw new Error(`connect_editor attached ${String(address)}`);
      answers.push({ ...outcome.error, message: outcome.error.message.replace(String(address), '<address>'), address: '<address>' });
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]).toMatchObject({ code: 'EDITOR_NOT_FOUND', message: '<address> is not a Neovim this agent may attach.' });
    expect(source.list().map((e) => e.info().pid)).toEqual([mine.pid]);
  });

  it('connect_editor by the pid of a process in the foreign Neovim attaches nothing', async () => {
    const pid = foreign[0]?.pid;
    if (pid === undefined) throw new Error('no foreign Neovim');
    // setpriv execs nvim: the pid is the foreign Neovim's own.
    const outcome = await connect(source, { terminal_pid: pid });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'EDITOR_NOT_FOUND' } });
    expect(source.list().map((e) => e.info().pid)).toEqual([mine.pid]);
  });
});
