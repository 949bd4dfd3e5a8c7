// Cancellation belongs to the request that was cancelled (PROTOCOL.md "MCP endpoint"), with real
// v2 SDK clients holding the same token, on the relay and on `vimrelay serve --http`. Client A
// and client B each hold a real Neovim in `input()` with run_command, under the same JSON-RPC id
// (each client numbers its requests from 0 and both do the same things, which the test checks on
// the wire); then A gives up (its AbortSignal):
//   - 2025 era: A's client POSTs notifications/cancelled naming the id. The endpoint cannot tell
//     which of the two it came from, so it cancels neither: B's call runs to its own end
//     (run_command's timeout_ms, TIMEOUT), never CANCELLED. A lone call is cancelled.
//   - 2026-07-28 era: A's client closes its response stream, which cancels A's call alone.
// Over `serve --stdio` (one client per connection) notifications/cancelled cancels in both eras.
// And a 2025 cancellation that reaches `serve --http` while the call still waits for the first
// discovery pass (held by a stopped Neovim's socket) cancels it: the call never runs.
import { mkdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { dirname, join } from 'node:path';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpEra } from '../../protocol/mcp-server.ts';
import { isolatedEnv } from '../helpers/agent-process.ts';
import { callOk, ERAS, errorOf, mcpClient } from '../helpers/mcp.ts';
import { answerText } from '../helpers/mcp-answer.ts';
import { startServeHttp } from '../helpers/serve-process.ts';
import { startNvim, type NvimFixture } from '../helpers/nvim.ts';
import { waitFor } from '../helpers/wait.ts';
import { START_CHAIN, type Chain, type ChainKind } from './chains.ts';

/** A command that holds the editor until run_command interrupts it after timeout_ms. */
const HOLD = { commands: ['call input("hold> ")'], timeout_ms: 4_000 };

interface Sent {
  method: string;
  id: unknown;
  /** The HTTP answer's body; null when the client aborted the request or closed while it was read. */
  response: Promise<string | null>;
}

/** A v2 client whose every POST is recorded with its answer (a real client over a real fetch). */
async function recordingClient(mcpUrl: string, token: string, era: McpEra): Promise<{ client: Client; sent: Sent[] }> {
  const sent: Sent[] = [];
  const client = mcpClient(era);
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: (url, init) => {
      const answer = fetch(url, init);
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string; id?: unknown }) : undefined;
      if (init?.method === 'POST' && body?.method) {
        sent.push({ method: body.method, id: body.id, response: answer.then((r) => r.clone().text().catch(() => null), () => null) });
      }
      return answer;
    },
  });
  await client.connect(transport);
  return { client, sent };
}

function last(sent: Sent[], method: string): Sent {
  const found = sent.filter((s) => s.method === method).at(-1);
  if (!found) throw new Error(`no ${method} was sent`);
  return found;
}

/** The tool error code in a legacy tools/call answer body. */
function codeIn(body: string | null): string {
  const result = (JSON.parse(body === null ? 'null' : answerText(body)) as { result: CallToolResult }).result;
  return errorOf('run_command', result).code;
}

/** Waits until the editor waits in input() (`held`), or is back in Normal mode. nvim_get_mode answers even then. */
async function blocked(nvim: NvimFixture, held = true): Promise<void> {
  await waitFor(async () => {
    const { mode } = (await nvim.client.request('nvim_get_mode', [])) as { mode: string };
    return (mode === 'c') === held ? true : undefined;
  }, 15_000, `the editor ${held ? 'to wait in input()' : 'to be free'}`);
}

describe.each<ChainKind>(['relay', 'http'])('cancellation over %s', (kind) => {
  let chain: Chain;
  let second: NvimFixture;
  const ids: string[] = [];

  beforeAll(async () => {
    chain = await START_CHAIN[kind]({ files: {}, open: [], era: 'legacy' });
    second = await startNvim({ listen: join(dirname(chain.nvim.socket), 'nvim.e2e.1') });
    await waitFor(async () => ((await callOk(chain.client, 'list_editors')).count === 2 ? true : undefined), 15_000, 'both editors');
    const editors = (await callOk(chain.client, 'list_editors')).editors as { id: string; pid: number }[];
    for (const nvim of [chain.nvim, second]) ids.push(editors.find((e) => e.pid === nvim.pid)?.id ?? '');
  }, 90_000);

  afterAll(async () => {
    await second?.stop();
    await chain?.stop();
  });

  /** Two clients of the one token, each holding its own editor under the same request id. */
  async function twins(era: McpEra) {
    const http = chain.http;
    if (!http) throw new Error('no HTTP endpoint');
    const a = await recordingClient(http.mcpUrl, http.token, era);
    const b = await recordingClient(http.mcpUrl, http.token, era);
    const stopA = new AbortController();
    const callA = a.client.callTool({ name: 'run_command', arguments: { editor: ids[0], ...HOLD } }, { signal: stopA.signal }).catch((e: unknown) => e);
    await blocked(chain.nvim);
    const callB = b.client.callTool({ name: 'run_command', arguments: { editor: ids[1], ...HOLD } });
    await blocked(second);
    expect(last(a.sent, 'tools/call').id).toEqual(last(b.sent, 'tools/call').id);
    return { a, b, stopA, callA, callB };
  }

  it('2025: A cancelling does not cancel B, which holds the same token and request id', async () => {
    const { a, b, stopA, callA, callB } = await twins('legacy');
    stopA.abort();
    await callA;
    // The client sends its notifications/cancelled on its own time; its 202 comes after the
    // server has acted on it.
    const cancelled = await waitFor(async () => a.sent.find((s) => s.method === 'notifications/cancelled'), 15_000, 'the cancellation to be sent');
    expect(await cancelled.response).toBe('');
    expect(errorOf('run_command', (await callB) as CallToolResult).code).toBe('TIMEOUT');
    // Nor is A's: the server could not tell which of the two it named.
    expect(codeIn(await last(a.sent, 'tools/call').response)).toBe('TIMEOUT');
    await Promise.all([blocked(chain.nvim, false), blocked(second, false), a.client.close(), b.client.close()]);
  }, 60_000);

  it('2025: a lone call is cancelled by its client', async () => {
    const http = chain.http;
    if (!http) throw new Error('no HTTP endpoint');
    const a = await recordingClient(http.mcpUrl, http.token, 'legacy');
    const stop = new AbortController();
    const call = a.client.callTool({ name: 'run_command', arguments: { editor: ids[0], ...HOLD } }, { signal: stop.signal }).catch((e: unknown) => e);
    await blocked(chain.nvim);
    stop.abort();
    await call;
    expect(codeIn(await last(a.sent, 'tools/call').response)).toBe('CANCELLED');
    await Promise.all([blocked(chain.nvim, false), a.client.close()]);
  }, 60_000);

  it('2026-07-28: A closing its stream cancels its call alone', async () => {
    const { a, b, stopA, callA, callB } = await twins('modern');
    stopA.abort();
    await callA;
    expect(await last(a.sent, 'tools/call').response).toBeNull();
    expect(errorOf('run_command', (await callB) as CallToolResult).code).toBe('TIMEOUT');
    // The audit log (after the editor is free, when both calls have ended) has A's call cancelled, B's not.
    await Promise.all([blocked(chain.nvim, false), blocked(second, false)]);
    const outcomes = (pid: number): unknown[] => chain.audit().filter((l) => l.tool === 'run_command' && String(l.editor).endsWith(`nvim-${pid}`)).map((l) => l.outcome);
    expect(outcomes(chain.nvim.pid).at(-1)).toBe('CANCELLED');
    expect(outcomes(second.pid).at(-1)).toBe('TIMEOUT');
    await Promise.all([a.client.close(), b.client.close()]);
  }, 60_000);
});

describe.each(ERAS)('cancellation over stdio, %s era', (era) => {
  let chain: Chain;

  beforeAll(async () => {
    chain = await START_CHAIN.stdio({ files: {}, open: [], era });
  }, 90_000);

  afterAll(async () => {
    await chain?.stop();
  });

  it('notifications/cancelled cancels the call it names', async () => {
    const stop = new AbortController();
    const call = chain.client.callTool({ name: 'run_command', arguments: { editor: chain.editorId, ...HOLD } }, { signal: stop.signal }).catch((e: unknown) => e);
    await blocked(chain.nvim);
    stop.abort();
    await call;
    await blocked(chain.nvim, false);
    const outcomes = chain.audit().filter((l) => l.tool === 'run_command').map((l) => l.outcome);
    expect(outcomes.at(-1)).toBe('CANCELLED');
  }, 60_000);
});

describe('a 2025 cancellation while serve --http still looks for editors', () => {
  it('cancels the call it names, which then never runs', async () => {
    const env = isolatedEnv();
    const sockets = join(String(env.HOME), 'sockets');
    mkdirSync(sockets, { recursive: true });
    const nvim = await startNvim({ listen: join(sockets, 'nvim.e2e.0') });
    // A stopped Neovim's socket: probing it holds the first discovery pass for the probe's timeout.
    const stopped = await startNvim({ listen: join(sockets, 'nvim.e2e.1') });
    process.kill(stopped.pid, 'SIGSTOP');
    const serve = await startServeHttp(['--port', '0', '--discover-dir', sockets], env);
    try {
      const headers = { authorization: `Bearer ${serve.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
      const post = async (message: unknown): Promise<string> => (await fetch(serve.mcpUrl, { method: 'POST', headers, body: JSON.stringify(message) })).text();
      // The call, sent whole before anything else; its answer is read at the end.
      const answer = new Promise<string>((resolve, reject) => {
        const req = httpRequest(serve.mcpUrl, { method: 'POST', headers }, (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => resolve(body));
        });
        req.on('error', reject);
        req.end(JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'run_command', arguments: { commands: ['let g:vimrelay_ran = 1'] } } }));
      });
      // A ping answered after the call arrived (so the call waits for discovery by now), then the cancellation.
      expect(await post({ jsonrpc: '2.0', id: 42, method: 'ping' })).toContain('"id":42');
      expect(await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 41 } })).toBe('');
      const body = await answer;
      const json = body.startsWith('{') ? body : (/^data: (.*)$/m.exec(body)?.[1] ?? 'null');
      expect(errorOf('run_command', (JSON.parse(json) as { result: CallToolResult }).result).code).toBe('CANCELLED');
      expect(await nvim.client.request('nvim_eval', ['get(g:, "vimrelay_ran", 0)'])).toBe(0);
    } finally {
      await serve.stop();
      process.kill(stopped.pid, 'SIGCONT');
      await Promise.all([nvim.stop(), stopped.stop()]);
    }
  }, 60_000);
});
