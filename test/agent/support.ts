/**
 * Test support for the Neovim adapter: a real editor (test/helpers/nvim.ts) with an NvimEditor
 * attached, and `call()`, which validates arguments against the catalog first, as the agent's
 * dispatcher does, then runs the tool.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname } from 'node:path';
import { parseArgs, toolByName, type ToolOutcome } from '../../protocol/index.ts';
import { NvimEditor } from '../../agent/editors/nvim/editor.ts';
import { startNvim, type NvimFixture, type StartNvimOptions } from '../helpers/nvim.ts';

export interface EditorFixture {
  nvim: NvimFixture;
  editor: NvimEditor;
  /** Runs a catalog tool through the adapter with validated arguments. */
  call(tool: string, args?: Record<string, unknown>, signal?: AbortSignal): Promise<ToolOutcome>;
  /** Runs a tool that must succeed and returns its data. */
  ok(tool: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** The buffer's lines, read directly. */
  lines(buf?: number): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startEditor(options: StartNvimOptions = {}): Promise<EditorFixture> {
  const nvim = await startNvim(options);
  const editor = await NvimEditor.attach(nvim.socket, { signal: AbortSignal.timeout(10_000) });
  const call = async (tool: string, args: Record<string, unknown> = {}, signal = new AbortController().signal): Promise<ToolOutcome> => {
    const spec = toolByName(tool);
    if (!spec) return editor.run(tool, args, signal);
    const parsed = parseArgs(spec, args);
    return parsed.ok ? editor.run(tool, parsed.args, signal) : parsed.outcome;
  };
  return {
    nvim,
    editor,
    call,
    async ok(tool, args) {
      const outcome = await call(tool, args);
      if (!outcome.ok) throw new Error(`${tool} failed: ${JSON.stringify(outcome.error)}`);
      return outcome.data;
    },
    lines: (buf = 0) => nvim.lua<string[]>('return vim.api.nvim_buf_get_lines(..., 0, -1, true)', buf),
    async stop() {
      await editor.close();
      await nvim.stop();
    },
  };
}

export { waitFor } from '../helpers/wait.ts';

/** UTF-8 bytes of a page as the caps count them: each line plus its newline. */
export function pageBytes(lines: readonly string[]): number {
  return lines.reduce((n, l) => n + Buffer.byteLength(l, 'utf8') + 1, 0);
}

/** A socket file whose server is not a Neovim: it answers garbage, and counts connections. */
export interface FakeSocket {
  connections(): number;
  close(): Promise<void>;
}

export async function fakeSocket(path: string): Promise<FakeSocket> {
  mkdirSync(dirname(path), { recursive: true });
  let connections = 0;
  const server: Server = createServer((s) => {
    connections++;
    s.on('error', () => {});
    // Bytes that would make the neovim client's decoder throw, were they ever handed to it.
    s.resume().end(Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n\xc1\xc1', 'latin1'));
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return {
    connections: () => connections,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Gives buffer `buf` fresh content as an undo step of its own (so a tool's edit cannot join it)
 * and returns its changedtick.
 */
export async function resetLines(nvim: NvimFixture, buf: number, lines: string[]): Promise<number> {
  await nvim.lua('vim.api.nvim_buf_set_lines(..., 0, -1, true, select(2, ...)); vim.bo[...].undolevels = vim.bo[...].undolevels', buf, lines);
  return changedtick(nvim, buf);
}

/** The changedtick of buffer `buf`, read directly. */
export function changedtick(nvim: NvimFixture, buf: number): Promise<number> {
  return nvim.lua<number>('return vim.api.nvim_buf_get_changedtick(...)', buf);
}
