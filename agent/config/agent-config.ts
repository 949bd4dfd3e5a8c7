/**
 * The agent's settings, `$XDG_CONFIG_HOME/vimrelay/config.json` (README "The vimrelay command"):
 * `{ "tcp_editors": ["127.0.0.1:6666", "[::1]:7777"] }`, the Neovim TCP addresses the user lets
 * the agent attach. A TCP port belongs to whoever listens on it first, so no other TCP address is
 * ever attached: not one found in $NVIM, not one connect_editor names. Loopback IP literals only
 * (127.0.0.0/8, ::1): a host name could resolve anywhere. `discovery` narrows which of the user's
 * own editors are shared (README "Whose editors"): `dirs`, the directories scanned for Neovim
 * sockets instead of the default ones; `skip`, directories under which no socket is attached,
 * found or named; `named_only`, only the editors the user named (g:vimrelay_name, :VimRelayName)
 * are listed and reached. Absolute paths only. No file means no TCP editors; an
 * invalid file, or one someone else could have written (own-file.ts), is an error naming the file
 * and the problem, and the agent does not start.
 */
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { parseAddress } from '../editors/nvim/address.ts';
import { readOwnFile } from './own-file.ts';

/** Most TCP addresses the file may list. */
export const MAX_TCP_EDITORS = 64;

/** The canonical form of a loopback `host:port` (`127.0.0.1:6666`, `[::1]:6666`), or null when it is not one. */
export function loopbackAddress(address: string): string | null {
  const parsed = parseAddress(address);
  if (!('host' in parsed)) return null;
  const v4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(parsed.host);
  if (v4 && v4.slice(1).every((o) => Number(o) <= 255)) return `${parsed.host}:${parsed.port}`;
  if (parsed.host.toLowerCase() === '::1') return `[::1]:${parsed.port}`;
  return null;
}

const TcpEditor = z.string().transform((address, ctx) => {
  const canonical = loopbackAddress(address);
  if (canonical === null) {
    ctx.addIssue({ code: 'custom', message: `${JSON.stringify(address)} is not a loopback address with a port, such as 127.0.0.1:6666 or [::1]:6666` });
    return z.NEVER;
  }
  return canonical;
});

/** Most directories `discovery.dirs` and `discovery.skip` may list, each. */
export const MAX_DISCOVERY_DIRS = 64;

const Dir = z.string().transform((path, ctx) => {
  if (!isAbsolute(path)) {
    ctx.addIssue({ code: 'custom', message: `${JSON.stringify(path)} is not an absolute path; write it in full, such as "/run/user/1000" (no ~)` });
    return z.NEVER;
  }
  return resolve(path);
});

const Discovery = z.strictObject({
  dirs: z.array(Dir).min(1).max(MAX_DISCOVERY_DIRS).optional(),
  skip: z.array(Dir).max(MAX_DISCOVERY_DIRS).default([]),
  named_only: z.boolean().default(false),
});

const ConfigFile = z.strictObject({
  tcp_editors: z.array(TcpEditor).max(MAX_TCP_EDITORS).default([]),
  discovery: Discovery.default({ skip: [], named_only: false }),
});

/** The settings as the agent uses them. */
export interface AgentConfig {
  /** Canonical loopback addresses (loopbackAddress). */
  tcpEditors: readonly string[];
  /** The directories to scan for Neovim sockets instead of the default ones, or null for those. */
  socketDirs: readonly string[] | null;
  /** Directories under which no Neovim socket is attached, normalized. */
  skipDirs: readonly string[];
  /** Only the editors the user named are listed and reached. */
  namedOnly: boolean;
}

/** The settings when there is no file. */
export const DEFAULT_AGENT_CONFIG: AgentConfig = { tcpEditors: [], socketDirs: null, skipDirs: [], namedOnly: false };

/** Reads the settings file: DEFAULT_AGENT_CONFIG when absent; throws, naming the file, when invalid or not the user's alone (own-file.ts). */
export function readAgentConfig(file: string): AgentConfig {
  const text = readOwnFile(file);
  if (text === undefined) return DEFAULT_AGENT_CONFIG;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  const parsed = ConfigFile.safeParse(json);
  if (!parsed.success) throw new Error(`${file} is not a valid vimrelay config file:\n${z.prettifyError(parsed.error)}`);
  const { tcp_editors: tcpEditors, discovery } = parsed.data;
  return { tcpEditors, socketDirs: discovery.dirs ?? null, skipDirs: discovery.skip, namedOnly: discovery.named_only };
}
