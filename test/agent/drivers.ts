/**
 * One way to drive either editor kind in a shared test: start a real Neovim (support.ts) or a real
 * Vim (test/helpers/vim.ts) with files, run catalog tools through its adapter with validated
 * arguments, and inspect or poke it directly (lines, changedtick, undo, a user's change) without
 * going through the tools under test.
 */
import { parseArgs, toolByName, type ToolOutcome } from '../../protocol/index.ts';
import type { Editor } from '../../agent/editors/editor.ts';
import type { VimEditor } from '../../agent/editors/vim/editor.ts';
import { startVimAgent } from '../helpers/vim.ts';
import { startEditor } from './support.ts';

export interface DriverOptions {
  /** Files to create in the working directory, with their content. */
  files: Record<string, string>;
  /** Files to open at startup, the first one shown. */
  open: string[];
  /** Ex commands a Vim runs before its plugins load (e.g. `packadd ale`); Neovim ignores them. */
  vimCmds?: string[];
  /** Run Vim in Normal mode reading typed keys (`type()`), not in Ex mode (-es). */
  vimNormal?: boolean;
}

export interface Driver {
  kind: 'nvim' | 'vim';
  cwd: string;
  editor: Editor;
  /** Runs a catalog tool with arguments validated against its input schema, as the dispatcher does. */
  call(tool: string, args?: Record<string, unknown>): Promise<ToolOutcome>;
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

/** Replaces a buffer's whole text as the user would (no tool involved); resolves with its changedtick. */
export async function replaceLines(d: Driver, buf: number, lines: string[]): Promise<number> {
  await d.expr(`deletebufline(${buf}, 1, '$')`);
  await d.expr(`setbufline(${buf}, 1, ${JSON.stringify(lines)})`);
  return d.tick(buf);
}

function withCalls(editor: Editor): Pick<Driver, 'call' | 'ok'> {
  const call = async (tool: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> => {
    const spec = toolByName(tool);
    if (!spec) throw new Error(`no tool ${tool}`);
    const parsed = parseArgs(spec, args);
    return parsed.ok ? editor.run(tool, parsed.args, AbortSignal.timeout(30_000)) : parsed.outcome;
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
export async function nvimDriver(options: DriverOptions): Promise<Driver> {
  const f = await startEditor(options);
  const lua = f.nvim.lua.bind(f.nvim);
  return {
    kind: 'nvim',
    cwd: f.nvim.cwd,
    editor: f.editor,
    ...withCalls(f.editor),
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
      await f.nvim.client.command(command);
    },
    type: async (keys) => {
      await f.nvim.client.input(keys);
    },
    expr: <T>(expr: string) => f.nvim.client.eval(expr) as Promise<T>,
    undo: async (buf) => {
      await lua('vim.api.nvim_buf_call(..., function() vim.cmd("undo") end)', buf);
    },
    stop: () => f.stop(),
  };
}

/** A Vim (vim -es, or in Normal mode with `vimNormal`, with plugin/vim) connected to a Vim listener of its own. */
export async function vimDriver(options: DriverOptions): Promise<Driver> {
  const agent = await startVimAgent();
  const vim = await agent.vim({ ...options, cmds: ['set hidden', ...(options.vimCmds ?? [])], normal: options.vimNormal });
  const editor: VimEditor = await agent.editorOf(vim);
  const evaluate = <T>(expr: string): Promise<T> => editor.evaluate(expr, AbortSignal.timeout(30_000)) as Promise<T>;
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
