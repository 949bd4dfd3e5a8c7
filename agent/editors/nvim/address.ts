/**
 * Neovim server addresses as `--listen` and `$NVIM` give them: a unix socket path, or `host:port`
 * for TCP (`[v6]:port` too), and the pid Neovim's own socket names carry. Pure: parses strings,
 * opens nothing.
 */
import { basename } from 'node:path';

/** Where to connect: a unix socket path, or a TCP host and port. */
export type NvimAddress = { readonly path: string } | { readonly host: string; readonly port: number };

const TCP = /^(?:\[([^\]]+)\]|([^/:[\]]+)):(\d{1,5})$/;

/** Parses an address: `host:port` (no slash in it) is TCP, anything else a socket path. */
export function parseAddress(address: string): NvimAddress {
  const m = TCP.exec(address);
  const port = m ? Number(m[3]) : NaN;
  if (m && port > 0 && port < 65536) return { host: m[1] ?? m[2] ?? '', port };
  return { path: address };
}

/** The pid in a socket name of Neovim's own layout (`nvim.<pid>.<n>`, 0.8 and later), or null. */
export function socketPid(address: string): number | null {
  const m = /^nvim\.(\d+)\.\d+$/.exec(basename(address));
  const pid = m ? Number(m[1]) : 0;
  return pid > 0 && Number.isSafeInteger(pid) ? pid : null;
}
