/**
 * Where Vims find their agent, and which process may be that agent (README "Vim"; PROTOCOL.md
 * "Vim channel").
 *
 * The agent listens on a unix socket, `vim.sock`, in a directory only the user can enter:
 * `$XDG_RUNTIME_DIR/vimrelay/` (or the runtime directory derived without the variable,
 * runtime-dirs.ts), else `vimrelay-<uid>/` under the user's temporary directory. The directory is
 * made 0700 and checked (trusted-path.ts) before anything is bound in it. Another account may have
 * taken that name first in a shared /tmp: then the socket goes in a fresh directory of the user's
 * own beside it (`vimrelay-<uid>-XXXXXX`, mkdtemp: a name nobody can take beforehand, removed
 * when the listener stops), and the squatter's directory is never looked into. The socket's address,
 * `unix:<path>`, is written to `$XDG_STATE_HOME/vimrelay/vim-address` (0600), which the plugin
 * reads; the token is `$XDG_CONFIG_HOME/vimrelay/vim-token` (0600).
 *
 * One listener at a time (`claimVimSocket`): the address file's socket, when something answers
 * on it, belongs to a live process (the first long-running one: `vimrelay agent`, `serve`,
 * `npm start`), and a later process leaves it alone — it serves no Vims until that one is gone.
 * A socket nobody answers on is a dead process's, and is replaced. The owner takes its socket and
 * its address file away when it stops (`release`), and only while they are still its own.
 */
import { lstatSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { paths } from '../../config/paths.ts';
import { ensurePrivateDir, readOptionalFile, writePrivateFile } from '../../config/private-file.ts';
import { vimSocketDir } from '../../config/runtime-dirs.ts';
import { checkTrusted } from '../../config/trusted-path.ts';

/** The files of the Vim channel for an environment. */
export interface VimFiles {
  /** The shared secret: `$XDG_CONFIG_HOME/vimrelay/vim-token`. */
  token: string;
  /** Where the live listener is: `$XDG_STATE_HOME/vimrelay/vim-address`, holding `unix:<socket>`. */
  address: string;
  /** The socket this environment's agent listens on. */
  socket: string;
  /** The port file of versions that listened on TCP only; removed when found. */
  legacyPort: string;
}

/** The longest unix socket path (sun_path holds 108 bytes with the final NUL on Linux, 104 on macOS). */
const MAX_SOCKET_PATH_BYTES = 103;

/** How long a probe of a listener may take (ms). */
const PROBE_TIMEOUT_MS = 1_000;

/** The Vim channel's files for `env` (default: process.env). */
export function vimFiles(env: NodeJS.ProcessEnv = process.env): VimFiles {
  const p = paths(env);
  return { token: join(p.configDir, 'vim-token'), address: join(p.stateDir, 'vim-address'), socket: join(vimSocketDir(env), 'vim.sock'), legacyPort: join(p.stateDir, 'vim-port') };
}

/** A socket this process listens on for Vims, until `release`. */
export interface ClaimedSocket {
  readonly server: Server;
  /** `unix:<path>`: what the address file holds, and what handshake proofs name. */
  readonly address: string;
  /** Stops listening; removes the socket and the address file when they are still this one's. */
  release(): Promise<void>;
}

/** What became of a claim: the socket, or the address of the live listener that holds it. */
export type Claim = { readonly claimed: ClaimedSocket } | { readonly heldBy: string };

/**
 * Listens on `files.socket` (or beside it, socketPlace) unless a live process holds the address
 * file's socket or this one (see the module header). Throws when no directory of the user's alone
 * can be had there, or the path is too long for a unix socket.
 */
export async function claimVimSocket(files: VimFiles): Promise<Claim> {
  const recorded = readOptionalFile(files.address)?.trim();
  if (recorded?.startsWith('unix:') && (await probe(recorded.slice('unix:'.length))) === 'live') return { heldBy: recorded };
  const { socket, fresh } = await socketPlace(files.socket);
  const address = `unix:${socket}`;
  const state = await probe(socket);
  if (state === 'live') return { heldBy: address };
  // A socket file nobody answers on: its process is gone.
  if (state === 'stale') rmSync(socket, { force: true });
  const server = createServer();
  const listened = await new Promise<boolean>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(false) : reject(error)));
    server.listen(socket, () => resolve(true));
  });
  // Another process bound it between the probe and now: it is the owner.
  if (!listened) return { heldBy: address };
  const inode = lstatSync(socket).ino;
  writePrivateFile(files.address, `${address}\n`);
  rmSync(files.legacyPort, { force: true });
  return {
    claimed: {
      server,
      address,
      async release() {
        const ours = inodeOf(socket) === inode;
        // Node removes the socket file when the server closes: first make sure it is still ours.
        if (!ours) server.unref();
        await new Promise<void>((resolve) => (ours ? server.close(() => resolve()) : resolve()));
        if (readOptionalFile(files.address)?.trim() === address) rmSync(files.address, { force: true });
        if (fresh) rmSync(dirname(socket), { recursive: true, force: true });
      },
    },
  };
}

/**
 * Where to bind `socket`: there, once its directory is made 0700 and found to be the user's alone;
 * else, when another account holds that directory, in a fresh private one beside it (`fresh`).
 * Throws when neither can be had, or the path is too long for a unix socket.
 */
async function socketPlace(socket: string): Promise<{ socket: string; fresh: boolean }> {
  const dir = dirname(socket);
  let why: string;
  try {
    ensurePrivateDir(dir);
    const trusted = await checkTrusted(dir, 'directory');
    if (trusted.ok) return { socket: boundable(socket), fresh: false };
    why = trusted.reason;
  } catch (error) {
    why = error instanceof Error ? error.message : String(error);
  }
  const own = mkdtempSync(`${dir}-`);
  const trusted = await checkTrusted(own, 'directory');
  if (!trusted.ok) {
    rmSync(own, { recursive: true, force: true });
    throw new Error(`cannot listen for Vim in ${dir} (${why}), nor beside it: ${trusted.reason}`);
  }
  return { socket: boundable(join(own, basename(socket))), fresh: true };
}

/** `socket`, unless it is too long for a unix socket. */
function boundable(socket: string): string {
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH_BYTES) throw new Error(`the Vim socket path ${socket} is too long for a unix socket; set XDG_RUNTIME_DIR to a shorter directory`);
  return socket;
}

function inodeOf(path: string): number | null {
  try {
    return lstatSync(path).ino;
  } catch {
    return null;
  }
}

/** Whether a process listens on the socket at `path`: live, stale (a file nobody answers on), or absent. */
function probe(path: string): Promise<'live' | 'stale' | 'absent'> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    const timer = setTimeout(() => done('live'), PROBE_TIMEOUT_MS);
    function done(state: 'live' | 'stale' | 'absent'): void {
      clearTimeout(timer);
      socket.destroy();
      resolve(state);
    }
    socket.once('connect', () => done('live'));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code === 'ECONNREFUSED' ? 'stale' : error.code === 'ENOENT' ? 'absent' : 'stale'));
  });
}
