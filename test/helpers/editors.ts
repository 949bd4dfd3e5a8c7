/**
 * The one editor fixture of the agent tests: a real Neovim (helpers/nvim.ts, with the agent's
 * NvimEditor attached) or a real Vim (helpers/vim.ts, connected to a Vim listener of its own),
 * started with files; catalog tools run through the adapter with validated arguments, as the
 * dispatcher runs them; and the editor inspected or poked directly (lines, changedtick, undo, a
 * user's change) without going through the tools under test. Also: small helpers those tests
 * share (a socket that is not a Neovim, page sizes).
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname } from 'node:path';
import { parseArgs, type ToolOutcome } from '../../protocol/index.ts';
import { controlWithin, type CallControl } from '../../agent/editors/call.ts';
import type { Editor } from '../../agent/editors/editor.ts';
import { NvimEditor } from '../../agent/editors/nvim/editor.ts';
import { editorTool, type EditorTool } from '../../agent/editors/tools/index.ts';
import type { VimEditor } from '../../agent/editors/vim/editor.ts';
import { splitLinePieces, VIM_CHUNK_UNITS } from '../../agent/editors/vim/staging.ts';
import { needProgram } from './machine.ts';
import { startNvim, type NvimFixture, type StartNvimOptions } from './nvim.ts';
import { startVimAgent } from './vim.ts';

export { waitFor } from './wait.ts';

/** How long a test call may take before it answers TIMEOUT. */
const CALL_MS = 30_000;

export interface DriverOptions {
  /** Files to create in the working directory, with their content. */
  files: Record<string, string | Uint8Array>;
  /** Files to open at startup, the first one shown. */
  open: string[];
  /** Ex commands a Vim runs before its plugins load (e.g. `packadd ale`); Neovim ignores them. */
  vimCmds?: string[];
  /** Run Vim in Normal mode reading typed keys (`type()`), not in Ex mode (-es). */
  vimNormal?: boolean;
  /** The name a Vim connects under ('': none, so its directory's); Neovim ignores it. Default 'test'. */
  vimName?: string;
  /** A Vim's working directory's own name; Neovim's is always `work`. */
  vimDir?: string;
}

/** A Neovim's options: the shared ones, any of startNvim's, and its files optional. */
export type NvimDriverOptions = Partial<DriverOptions> & StartNvimOptions;

export interface Driver {
  kind: 'nvim' | 'vim';
  cwd: string;
  editor: Editor;
  /**
   * Runs a catalog tool with arguments validated against its input schema, as the dispatcher
   * does, within `control` (default: 30 s).
   */
  call(tool: string, args?: Record<string, unknown>, control?: CallControl): Promise<ToolOutcome>;
  /** Runs a tool that must succeed and returns its data. */
  ok(tool: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
  bufnr(name: string): Promise<number>;
  lines(buf: number): Promise<string[]>;
  tick(buf: number): Promise<number>;
  listed(buf: number): Promise<boolean>;
  /** Makes `name` the current buffer and puts the cursor on `line`, 0-based byte `byte`. */
  cursor(name: string, line: number, byte: number): Promise<void>;
  /** Sets one line as a user's change would, without closing the undo block. */
  setLine(buf: number, line: number, text: string): Promise<void>;
  /** Runs an Ex command in the current window. */
  command(command: string): Promise<void>;
  /** Types keys as a user would, without waiting for their effect (Vim: only with `vimNormal`). */
  type(keys: string): Promise<void>;
  /** Evaluates a Vimscript expression (the same in both editors). */
  expr<T = unknown>(expr: string): Promise<T>;
  /** `:undo` once in that buffer, leaving the current buffer as it was. */
  undo(buf: number): Promise<void>;
  stop(): Promise<void>;
}

/** A Neovim driver, with the raw process and client for what only Neovim has. */
export interface NvimDriver extends Driver {
  kind: 'nvim';
  editor: NvimEditor;
  nvim: NvimFixture;
}

/** Replaces a buffer's whole text as the user would (no tool involved); resolves with its changedtick. */
export async function replaceLines(d: Driver, buf: number, lines: string[]): Promise<number> {
  await d.expr(`deletebufline(${buf}, 1, '$')`);
  await setLines(d, buf, lines);
  return d.tick(buf);
}

/**
 * Sets buffer `buf`'s lines from line 1 on to `lines` (Vimscript both editors share), in the pieces
 * the agent sends its own long texts to Vim in (vim/staging.ts `splitLinePieces`): Vim's channel
 * gives up a long message that reaches it in parts far apart, on a busy machine, and the call is
 * never answered. Each piece after the first continues the last line so far, then adds lines.
 * No lines set nothing: a buffer left empty stays without lines, not one empty line.
 */
export async function setLines(d: Driver, buf: number, lines: readonly string[]): Promise<void> {
  if (lines.length === 0) return;
  let last = 0;
  for (const [i, piece] of splitLinePieces(lines, VIM_CHUNK_UNITS).entries()) {
    const [first = '', ...rest] = piece;
    if (i === 0) await d.expr(`setbufline(${buf}, 1, ${JSON.stringify(piece)})`);
    else {
      await d.expr(`setbufline(${buf}, ${last}, getbufline(${buf}, ${last})[0] . ${JSON.stringify(first)})`);
      if (rest.length > 0) await d.expr(`setbufline(${buf}, ${last + 1}, ${JSON.stringify(rest)})`);
    }
    last += i === 0 ? piece.length : rest.length;
  }
}

/**
 * The record of editor tool `tool` and `args` validated against its input schema, as the
 * dispatcher has them; throws for an unknown tool or invalid arguments.
 */
export function validCall(tool: string, args: Record<string, unknown> = {}): { record: EditorTool; args: Record<string, unknown> } {
  const record = editorTool(tool);
  if (!record) throw new Error(`no editor tool ${tool}`);
  const parsed = parseArgs(record.spec, args);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.outcome));
  return { record, args: parsed.args };
}

function withCalls(editor: Editor): Pick<Driver, 'call' | 'ok'> {
  const call = async (tool: string, args: Record<string, unknown> = {}, control = controlWithin(CALL_MS)): Promise<ToolOutcome> => {
    const record = editorTool(tool);
    if (!record) throw new Error(`no editor tool ${tool}`);
    const parsed = parseArgs(record.spec, args);
    return parsed.ok ? editor.run(record, parsed.args, control) : parsed.outcome;
  };
  return {
    call,
    async ok(tool, args) {
      const outcome = await call(tool, args);
      if (!outcome.ok) throw new Error(`${tool} failed: ${JSON.stringify(outcome.error)}`);
      return outcome.data;
    },
  };
}

/** A Neovim (nvim --headless --clean) with the adapter attached. */
export async function nvimDriver(options: NvimDriverOptions = {}): Promise<NvimDriver> {
  const nvim = await startNvim(options);
  let editor: NvimEditor;
  try {
    editor = await NvimEditor.attach(nvim.socket, { signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    await nvim.stop();
    throw error;
  }
  const lua = nvim.lua.bind(nvim);
  return {
    kind: 'nvim',
    cwd: nvim.cwd,
    editor,
    nvim,
    ...withCalls(editor),
    bufnr: (name) => lua<number>('return vim.fn.bufnr(...)', name),
    lines: (buf) => lua<string[]>('return vim.api.nvim_buf_get_lines(..., 0, -1, true)', buf),
    tick: (buf) => lua<number>('return vim.api.nvim_buf_get_changedtick(...)', buf),
    listed: (buf) => lua<boolean>('return vim.bo[...].buflisted', buf),
    cursor: async (name, line, byte) => {
      await lua('local name, line, byte = ...; vim.api.nvim_set_current_buf(vim.fn.bufnr(name)); vim.api.nvim_win_set_cursor(0, {line, byte})', name, line, byte);
    },
    setLine: async (buf, line, text) => {
      await lua('local b, l, t = ...; vim.api.nvim_buf_set_lines(b, l - 1, l, true, {t})', buf, line, text);
    },
    command: async (command) => {
      await nvim.client.command(command);
    },
    type: async (keys) => {
      await nvim.client.input(keys);
    },
    expr: <T>(expr: string) => nvim.client.eval(expr) as Promise<T>,
    undo: async (buf) => {
      await lua('vim.api.nvim_buf_call(..., function() vim.cmd("undo") end)', buf);
    },
    stop: async () => {
      await editor.close();
      await nvim.stop();
    },
  };
}

/** A Vim (vim -es, or in Normal mode with `vimNormal`, with plugin/vim) connected to a Vim listener of its own. */
export async function vimDriver(options: DriverOptions): Promise<Driver> {
  if (options.vimCmds?.includes('packadd ale')) needProgram('vim-ale');
  const agent = await startVimAgent();
  const vim = await agent.vim({
    ...options,
    cmds: ['set hidden', ...(options.vimCmds ?? [])],
    normal: options.vimNormal,
    ...(options.vimName === undefined ? {} : { name: options.vimName }),
    ...(options.vimDir === undefined ? {} : { dir: options.vimDir }),
  });
  const editor: VimEditor = await agent.editorOf(vim);
  const evaluate = <T>(expr: string): Promise<T> => editor.evaluate(expr, AbortSignal.timeout(CALL_MS)) as Promise<T>;
  const inBuffer = async (buf: number, command: string): Promise<void> => {
    const current = await evaluate<number>('bufnr("%")');
    await evaluate(`execute('buffer ${buf} | ${command} | buffer ${current}')`);
  };
  return {
    kind: 'vim',
    cwd: vim.cwd,
    editor,
    ...withCalls(editor),
    bufnr: (name) => evaluate(`bufnr(${JSON.stringify(name)})`),
    lines: (buf) => evaluate(`getbufline(${buf}, 1, '$')`),
    tick: (buf) => evaluate(`getbufvar(${buf}, 'changedtick')`),
    listed: async (buf) => (await evaluate<number>(`buflisted(${buf})`)) === 1,
    cursor: async (name, line, byte) => {
      await evaluate(`execute('buffer ' . bufnr(${JSON.stringify(name)}) . ' | call cursor(${line}, ${byte + 1})')`);
    },
    setLine: async (buf, line, text) => {
      await evaluate(`setbufline(${buf}, ${line}, ${JSON.stringify(text)})`);
    },
    command: async (command) => {
      await evaluate(`execute(${JSON.stringify(command)})`);
    },
    type: async (keys) => {
      if (!options.vimNormal) throw new Error('type() needs a Vim started with vimNormal');
      vim.proc.stdin?.write(keys);
    },
    expr: evaluate,
    undo: (buf) => inBuffer(buf, 'undo'),
    stop: () => agent.stop(),
  };
}

/** Both editors, for `describe.each`: a name and how to start a driver. */
export const DRIVERS = [
  ['Neovim', nvimDriver],
  ['Vim', vimDriver],
] as const;

/** A Vim in Normal mode, keys through a pipe: prompts, mappings and typing as on a terminal. */
export const vimNormalDriver = (options: DriverOptions): Promise<Driver> => vimDriver({ ...options, vimNormal: true });

/** Both editors as a user types into them (a Vim's prompts are answered by typing): Neovim, Vim in Normal mode. */
export const NORMAL_DRIVERS = [
  ['Neovim', nvimDriver],
  ['Vim', vimNormalDriver],
] as const;

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
