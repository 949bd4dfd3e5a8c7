/**
 * A bare MCP client over stdio for bench/main.ts: JSON-RPC lines written to `vimrelay serve
 * --stdio` and its answers parsed with JSON.parse, nothing else (no schema validation, no SDK).
 * Beside the SDK client's figure it shows how much of a call is vimrelay's and how much the
 * measuring client's own work (the SDK client validates every result against its schemas). The
 * session opens the 2025-11-25 way (`initialize`), which every client speaks.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface BareStdio {
  /** One tools/call; resolves with its JSON-RPC `result` (or rejects with its error). */
  callTool(request: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

export async function bareStdio(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<BareStdio> {
  const proc: ChildProcessWithoutNullStreams = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  proc.stderr.resume();
  const waiting = new Map<number, { resolve(result: unknown): void; reject(error: Error): void }>();
  createInterface({ input: proc.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as { id?: number; result?: unknown; error?: { message: string } };
    const waiter = message.id === undefined ? undefined : waiting.get(message.id);
    if (!waiter || message.id === undefined) return;
    waiting.delete(message.id);
    if (message.error) waiter.reject(new Error(message.error.message));
    else waiter.resolve(message.result);
  });
  let nextId = 0;
  const request = (method: string, params: Record<string, unknown>): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      waiting.set(id, { resolve, reject });
      proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'vimrelay-bench', version: '0' } });
  proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  return {
    callTool: (call) => request('tools/call', call),
    close: () =>
      new Promise((resolve) => {
        // Closing stdin ends the session; a server that already exited has nothing left to end.
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.stdin.end();
      }),
  };
}
