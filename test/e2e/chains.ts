/**
 * The three ways an MCP client reaches an editor, as fixtures that each yield a connected SDK
 * client and the real headless Neovim behind it, so that one behavioural suite runs over all:
 *   relay  client -> local workerd (Worker + Hub) -> `vimrelay agent` process -> nvim
 *   http   client -> `vimrelay serve --http` process (127.0.0.1, bearer token) -> nvim
 *   stdio  client -> `vimrelay serve --stdio` process (spawned by the SDK's stdio transport) -> nvim
 * Every process gets an isolated HOME/XDG and discovers editors only in its own directory. The
 * client speaks the era it is asked for (helpers/mcp.ts: `modern` 2026-07-28, `legacy` 2025).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { McpEra } from '../../protocol/mcp-server.ts';
import { paths } from '../../agent/config/paths.ts';
import { writePolicy, type Policy } from '../../agent/policy/file.ts';
import { CLI, isolatedEnv, runCli, startAgentProcess } from '../helpers/agent-process.ts';
import { callOk, connectMcp, connectStdio } from '../helpers/mcp.ts';
import { assertNoNodeWarnings } from '../helpers/node-warnings.ts';
import { startNvim, type NvimFixture, type StartNvimOptions } from '../helpers/nvim.ts';
import { withRelay } from '../helpers/relay.ts';
import { startServeHttp } from '../helpers/serve-process.ts';
import { waitFor } from '../helpers/wait.ts';

export type ChainKind = 'relay' | 'http' | 'stdio';

export interface Chain {
  readonly kind: ChainKind;
  readonly era: McpEra;
  readonly client: Client;
  readonly nvim: NvimFixture;
  /** The device part of editor ids: the enrolled name through the relay, the hostname locally. */
  readonly device: string;
  /** The editor's public id, `<device>/nvim-<pid>`, once list_editors shows it. */
  readonly editorId: string;
  /** The HTTP endpoint and a valid token, for requests below the MCP layer; null over stdio. */
  readonly http: { readonly mcpUrl: string; readonly token: string } | null;
  /** What the server side (agent or serve process) logged, for failure messages. */
  log(): string;
  /** The audit log lines of the agent (or serve process) behind the chain, parsed. */
  audit(): Record<string, unknown>[];
  /** The policy file of the agent (or serve process), read again at each call: a test may rewrite it. */
  readonly policyFile: string;
  stop(): Promise<void>;
}

export interface ChainOptions {
  /** Files in the editor's working directory, and the ones it opens (the first is shown). */
  files: Record<string, string>;
  open: string[];
  era: McpEra;
  /** More of the Neovim's start (its environment, arguments such as a user config). */
  nvim?: Pick<StartNvimOptions, 'env' | 'args'>;
  /** The policy the server side starts with; default every class allowed (helpers/home.ts). */
  policy?: Policy;
}

export const START_CHAIN: Record<ChainKind, (options: ChainOptions) => Promise<Chain>> = {
  relay: relayChain,
  http: httpChain,
  stdio: stdioChain,
};

/** The id the chain lists `nvim` under, once it does; failing, with what the agent or serve logged. */
function listedId(client: Client, nvim: NvimFixture, log: () => string): Promise<string> {
  return waitFor(async () => {
    const editors = (await callOk(client, 'list_editors')).editors as { id: string; pid: number }[];
    return editors.find((e) => e.pid === nvim.pid)?.id;
  }, 15_000, () => `the editor to appear in list_editors; the log:\n${log()}`);
}

/** The audit log lines written under `env`'s state directory (README "Permissions", the audit log). */
function auditOf(env: NodeJS.ProcessEnv): () => Record<string, unknown>[] {
  return () => {
    const file = join(String(env.XDG_STATE_HOME), 'vimrelay', 'audit.log');
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
  };
}

/** An isolated home with its policy file, a discovery directory, and a Neovim listening in it. */
async function homeWithNvim(options: ChainOptions): Promise<{ env: NodeJS.ProcessEnv; sockets: string; nvim: NvimFixture; policyFile: string }> {
  const env = isolatedEnv();
  const policyFile = paths(env).policy;
  if (options.policy) writePolicy(policyFile, options.policy);
  const sockets = join(String(env.HOME), 'sockets');
  mkdirSync(sockets, { recursive: true });
  const nvim = await startNvim({ ...options.nvim, files: options.files, open: options.open, listen: join(sockets, 'nvim.e2e.0') });
  return { env, sockets, nvim, policyFile };
}

async function relayChain(options: ChainOptions): Promise<Chain> {
  const relay = await withRelay();
  const { env, sockets, nvim, policyFile } = await homeWithNvim(options);
  const device = 'e2e-box';
  const enrolled = runCli(['enroll', '--relay', relay.url, '--name', device], { ...env, VIMRELAY_OWNER_SECRET: relay.ownerSecret });
  if (enrolled.status !== 0) throw new Error(`enroll failed: ${enrolled.stderr}`);
  const agent = startAgentProcess(['--relay', relay.url, '--discover-dir', sockets], env);
  await agent.waitFor('connected to relay');
  const token = await relay.mint({ kind: 'access', name: 'e2e' });
  const client = await connectMcp(relay.mcpUrl, token, options.era);
  return {
    kind: 'relay',
    era: options.era,
    client,
    nvim,
    device,
    editorId: await listedId(client, nvim, () => agent.output()),
    http: { mcpUrl: relay.mcpUrl, token },
    log: () => agent.output(),
    audit: auditOf(env),
    policyFile,
    async stop() {
      await client.close();
      await agent.stop();
      await nvim.stop();
      await relay.stop();
    },
  };
}

async function httpChain(options: ChainOptions): Promise<Chain> {
  const { env, sockets, nvim, policyFile } = await homeWithNvim(options);
  const serve = await startServeHttp(['--port', '0', '--discover-dir', sockets], env);
  const client = await connectMcp(serve.mcpUrl, serve.token, options.era);
  return {
    kind: 'http',
    era: options.era,
    client,
    nvim,
    device: hostname(),
    editorId: await listedId(client, nvim, () => serve.stderr()),
    http: { mcpUrl: serve.mcpUrl, token: serve.token },
    log: () => serve.stderr(),
    audit: auditOf(env),
    policyFile,
    async stop() {
      await client.close();
      await serve.stop();
      await nvim.stop();
    },
  };
}

async function stdioChain(options: ChainOptions): Promise<Chain> {
  const { env, sockets, nvim, policyFile } = await homeWithNvim(options);
  const serve = await connectStdio(process.execPath, [CLI, 'serve', '--stdio', '--discover-dir', sockets], env, options.era);
  return {
    kind: 'stdio',
    era: options.era,
    client: serve.client,
    nvim,
    device: hostname(),
    editorId: await listedId(serve.client, nvim, () => serve.stderr()),
    http: null,
    log: () => serve.stderr(),
    audit: auditOf(env),
    policyFile,
    async stop() {
      // Closing ends the server's stdin, which ends its session and the process.
      await serve.client.close();
      await nvim.stop();
      assertNoNodeWarnings(serve.stderr(), 'vimrelay serve --stdio');
    },
  };
}
