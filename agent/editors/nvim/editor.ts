/**
 * The Neovim adapter: one attached Neovim as an `Editor`.
 *
 * Contract: `NvimEditor.attach` connects, checks the API, installs lua/core.lua, its helpers and
 * the tool chunks with ONE `nvim_exec_lua` (which also subscribes this channel to DirChanged/BufEnter/... and
 * VimLeavePre, and returns the editor's info). Each `run` is then ONE `nvim_exec_lua` into that
 * code, so a tool's changedtick guard and its edit are atomic; a tool whose record defers its
 * answer gets it later as the notification `vimrelay_answer` (call.ts `runTool`). Info is kept fresh by the events
 * (and by `refresh`); the editor counts as gone when its socket closes or it announces VimLeavePre.
 * Never waits forever: every request honours the caller's AbortSignal and fails EDITOR_OFFLINE
 * when the socket closes.
 *
 * A Neovim that waits for its user (blocked.ts) answers only `nvim_get_mode` and the like: every
 * request that runs Lua in it (a tool, the files a call addresses, a prompt, a refresh) is asked
 * after `nvim_get_mode` says it does not block, and is not sent otherwise (EditorBlocked, the
 * call's EDITOR_BLOCKED), and runs only if Neovim starts it in time (in-time.ts), so that nothing
 * runs later behind the caller's back. One found waiting as it is attached (at the swap-file
 * question as it starts) is listed at once, with what the system tells of it (process-of.ts), and
 * installed as soon as it can be asked.
 */
import { LIMITS, type ToolOutcome, type WireEditor } from '../../../protocol/index.ts';
import { basename } from 'node:path';
import { z } from 'zod';
import { silentLogger, type Logger } from '../../log.ts';
import type { AskAnswer, AskRequest } from '../../policy/types.ts';
import type { Hunk } from '../../reviews/diff.ts';
import { EditorBlocked, waitingFor, WaitWatch, type EditorWaiting } from '../blocked.ts';
import { applyReviewed, DeferredAnswers, proposeTool, runTool, type Applied, type CallControl, type EditorLink, type InvokeOptions, type Proposal } from '../call.ts';
import type { Editor } from '../editor.ts';
import { parsePaths, pathsParams } from '../paths.ts';
import { editorPromptOptions, EditorPrompts } from '../prompts.ts';
import { EditorReviews, type OpenReview, type ReviewSpec } from '../reviews.ts';
import type { Addressing, EditorTool } from '../tools/tool.ts';
import { parseAddress, socketPid } from './address.ts';
import { NvimConnection } from './connection.ts';
import { IN_TIME_MS, InTime, LATE } from './in-time.ts';
import { LuaInfo, parseApiInfo, wireEditor, type ApiSummary } from './info.ts';
import { ASK_LUA, CALL_LUA, CANCEL_LUA, CORE_LUA, HELPER_SOURCES, INFO_LUA, INSTALL_KEY, PROPOSE_LUA, REVIEW_LUA, TOOL_SOURCES } from './lua.ts';
import { processStartedAt } from '../process-start.ts';
import { processCwd, socketOwner } from './process-of.ts';

/** What `nvim_get_mode` answers (`:help nvim_get_mode()`); one of the requests Neovim answers while it waits for its user. */
const Mode = z.object({ mode: z.string(), blocking: z.boolean() });

/** How to attach. */
export interface AttachOptions {
  /** Aborts attaching (not the editor once attached). */
  signal: AbortSignal;
  logger?: Logger;
}

/** One attached Neovim; see the module header. Create it with `NvimEditor.attach`. */
export class NvimEditor implements Editor {
  readonly kind = 'nvim' as const;
  /** `nvim-<pid>`. */
  readonly id: string;
  readonly pid: number;
  /** The address it was attached through (socket path or host:port). */
  readonly address: string;
  /** Settles when the editor is gone (exited, or detached by `close`). */
  readonly exited: Promise<void>;
  readonly #connection: NvimConnection;
  readonly #inTime: InTime;
  readonly #api: ApiSummary;
  readonly #logger: Logger;
  readonly #listeners = new Set<(editor: NvimEditor) => void>();
  /** The prompts shown in this Neovim; their answers come back as vimrelay_ask notifications. */
  readonly #prompts: EditorPrompts;
  /** The reviews open in this Neovim; their answers come back as vimrelay_review notifications. */
  readonly #reviews: EditorReviews;
  /** The answers of deferred calls; they come back as vimrelay_answer notifications. */
  readonly #answers = new DeferredAnswers();
  readonly #link: EditorLink;
  /** What it waits for its user to answer, if it does (blocked.ts). */
  readonly #wait: WaitWatch;
  /** What its Lua last said of it (or, before it could be installed, what the system said). */
  #lua: LuaInfo;
  #info: WireEditor;
  /** When its process started (process-start.ts), read once. */
  readonly #startedAt: number | null;
  /** Whether this agent's Lua is installed in it; the install under way, if any. */
  #installed: boolean;
  #installing: Promise<void> | null = null;

  /**
   * `installed`: `lua` is what the installed Lua said, else what the system tells of a Neovim
   * that waits (`waiting`) and is installed once it can be asked.
   */
  private constructor(connection: NvimConnection, address: string, api: ApiSummary, lua: LuaInfo, installed: boolean, waiting: EditorWaiting | null, logger: Logger) {
    const channel = api.channel;
    this.#connection = connection;
    this.#inTime = new InTime(connection, channel, (signal) => this.#waitingNow(signal));
    this.#prompts = new EditorPrompts({
      open: async (id, lines, options, signal) => {
        await this.#runLua(ASK_LUA, ['open', channel, id, lines, editorPromptOptions(options)], signal);
      },
      close: async (id, notice, signal) => void (await connection.request('nvim_exec_lua', [ASK_LUA, ['close', channel, id, [], { notice }]], signal)),
    });
    this.#reviews = new EditorReviews({
      open: async (id, spec, signal) => {
        await this.#runLua(REVIEW_LUA, ['open', channel, id, spec], signal);
      },
      close: async (id, message, signal) => void (await connection.request('nvim_exec_lua', [REVIEW_LUA, ['close', channel, id, { message }]], signal)),
      expire: async (id, signal) => void (await connection.request('nvim_exec_lua', [REVIEW_LUA, ['expire', channel, id, {}]], signal)),
    });
    this.#link = {
      name: 'Neovim',
      // Neovim redraws after a call by itself: `redraw` is Vim's (and says the tool is not read-only).
      invoke: async (impl, params, signal, opts) => {
        if (opts.propose) {
          const args = opts.expect === undefined ? [impl, params, opts.propose] : [impl, params, opts.propose, opts.expect];
          return fromJson(await this.#runLua(PROPOSE_LUA, args, signal));
        }
        const raw = await this.#request(impl, params, signal, channel, opts.expect);
        // A read capped in bytes whose answer grew past the cap here (`outgrew`) is asked once
        // more, its bytes that are not UTF-8 counted as read (lua/util.lua M.json_size).
        if (!opts.redraw && 'max_bytes' in params && outgrew(raw)) return fromJson(await this.#request(impl, { ...params, exact_sizes: true }, signal, channel, opts.expect));
        return fromJson(raw);
      },
      cancel: async (token, signal) => void (await connection.request('nvim_exec_lua', [CANCEL_LUA, [token]], signal)),
    };
    this.address = address;
    this.#api = api;
    this.#logger = logger;
    this.pid = lua.pid;
    this.id = `nvim-${lua.pid}`;
    this.#lua = lua;
    this.#installed = installed;
    // Asked again while it waits: once it can be asked, this agent's Lua goes in first (if it is
    // not in yet), so that the info announced with the change is its own.
    this.#wait = new WaitWatch(
      async (signal) => {
        const now = await this.#waitingNow(signal);
        if (now === null && !this.#installed) await this.#install(signal);
        return now;
      },
      () => this.#setInfo(this.#lua),
    );
    this.#startedAt = processStartedAt(lua.pid);
    this.#info = wireEditor(this.id, api.version, lua, null, this.#startedAt);
    this.#wait.set(waiting);
    this.exited = connection.closed;
    void connection.closed.then(() => {
      this.#wait.close();
      this.#prompts.abandon('Neovim');
      this.#reviews.abandon('Neovim');
      this.#answers.abandon();
    });
    connection.onNotification((method, args) => this.#onNotification(method, args));
  }

  /**
   * Attaches the Neovim at `address` (socket path or host:port); one that waits for its user is
   * attached uninstalled (see the module header). Throws when it cannot, and EditorBlocked for one
   * that waits and whose process the system does not name (no pid, no id): a later scan tries again.
   */
  static async attach(address: string, { signal, logger = silentLogger }: AttachOptions): Promise<NvimEditor> {
    const connection = await NvimConnection.open(address, { signal, logger });
    try {
      const api = parseApiInfo(await connection.request('nvim_get_api_info', [], signal));
      if (api.missing.length > 0) throw new Error(`Neovim ${api.version} lacks ${api.missing.join(', ')}`);
      const waiting = await waitingOf(connection, signal);
      if (waiting === null) return new NvimEditor(connection, address, api, await install(connection, api, signal), true, null, logger);
      const pid = socketPid(address) ?? ('path' in parseAddress(address) ? socketOwner(address) : null);
      if (pid === null) throw new EditorBlocked(waiting);
      const cwd = processCwd(pid) ?? '';
      const seen: LuaInfo = { name: basename(cwd) || cwd, chosen: false, cwd, current_file: null, pid };
      return new NvimEditor(connection, address, api, seen, false, waiting, logger);
    } catch (error) {
      await connection.close();
      throw error;
    }
  }

  get isClosed(): boolean {
    return this.#connection.isClosed;
  }

  info(): WireEditor {
    return this.#info;
  }

  chosenName(): string | null {
    return this.#lua.chosen ? this.#lua.name : null;
  }

  /** Calls `listener` whenever `info()` changes. Returns the unsubscribe function. */
  onInfoChange(listener: (editor: NvimEditor) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Re-reads the info (catches what no event announces, such as a new g:vimrelay_name). */
  async refresh(signal: AbortSignal): Promise<void> {
    this.#setInfo(LuaInfo.parse(await this.#runLua(INFO_LUA, [], signal)));
  }

  run(tool: EditorTool, args: Record<string, unknown>, call: CallControl): Promise<ToolOutcome> {
    return runTool(this.#link, this.#answers, tool, args, call);
  }

  propose(tool: EditorTool, args: Record<string, unknown>, call: CallControl, maxLines: number): Promise<Proposal | ToolOutcome> {
    return proposeTool(this.#link, this.#answers, tool, args, call, maxLines);
  }

  applyReviewed(buf: number, expectedTick: number, hunks: readonly Hunk[], signal: AbortSignal): Promise<Applied | ToolOutcome> {
    return applyReviewed(this.#link, buf, expectedTick, hunks, signal);
  }

  openReview(id: string, spec: ReviewSpec, signal: AbortSignal): Promise<OpenReview> {
    return this.#reviews.open(id, spec, signal);
  }

  async paths(addressing: Addressing, args: Record<string, unknown>, signal: AbortSignal): Promise<string[]> {
    return parsePaths(fromJson(await this.#request('paths', pathsParams(addressing, args), signal)));
  }

  /**
   * Runs the installed implementation `impl` (one nvim_exec_lua), once Neovim says it can be
   * asked: its raw answer; `channel` (this connection's) is where a deferred answer goes; `expect`,
   * see InvokeOptions.
   */
  #request(impl: string, params: Record<string, unknown>, signal: AbortSignal, channel?: number, expect?: InvokeOptions['expect']): Promise<unknown> {
    const args = channel === undefined ? [impl, params] : expect === undefined ? [impl, params, channel] : [impl, params, channel, expect];
    return this.#runLua(CALL_LUA, args, signal);
  }

  /**
   * Runs the Lua chunk `code` with `args` (one nvim_exec_lua) once Neovim can be asked, and only
   * if Neovim starts it in time (in-time.ts): one started late is asked again, with a window
   * twice as long; one held by a user who started typing a command is EditorBlocked.
   */
  async #runLua(code: string, args: readonly unknown[], signal: AbortSignal): Promise<unknown> {
    for (let windowMs = IN_TIME_MS; ; windowMs *= 2) {
      await this.#askable(signal);
      try {
        const answer = await this.#inTime.request(code, args, windowMs, signal);
        if (answer !== LATE) return answer;
      } catch (error) {
        if (error instanceof EditorBlocked) this.#wait.set(error.waitingFor);
        throw error;
      }
    }
  }

  /**
   * Resolves once a request that runs Lua may be sent: Neovim does not wait for its user (else
   * EditorBlocked, and nothing is sent), and this agent's Lua is installed.
   */
  async #askable(signal: AbortSignal): Promise<void> {
    const waiting = await this.#waitingNow(signal);
    if (waiting !== null) {
      this.#wait.set(waiting);
      throw new EditorBlocked(waiting);
    }
    if (!this.#installed) await this.#install(signal);
    this.#wait.set(null);
  }

  /** What Neovim waits for its user to answer now, or null. */
  #waitingNow(signal: AbortSignal): Promise<EditorWaiting | null> {
    return waitingOf(this.#connection, signal);
  }

  /** Installs this agent's Lua (one install at a time) and takes the info it answers. */
  #install(signal: AbortSignal): Promise<void> {
    this.#installing ??= install(this.#connection, this.#api, signal)
      .then((lua) => {
        this.#installed = true;
        this.#setInfo(lua);
      })
      .finally(() => (this.#installing = null));
    return this.#installing;
  }

  ask(request: AskRequest, signal: AbortSignal): Promise<AskAnswer> {
    return this.#prompts.ask(request, signal);
  }

  async close(): Promise<void> {
    await this.#connection.close();
  }

  #onNotification(method: string, args: unknown[]): void {
    if (method === 'vimrelay_started') {
      this.#inTime.started(args[0]);
    } else if (method === 'vimrelay_leave') {
      void this.close();
    } else if (method === 'vimrelay_answer') {
      if (!this.#answers.settle(args[0], fromJson(args[1]))) this.#logger.debug('unexpected vimrelay_answer event', { editor: this.id });
    } else if (method === 'vimrelay_review') {
      if (!this.#reviews.answer(args[0], args[1])) this.#logger.debug('unexpected vimrelay_review event', { editor: this.id });
    } else if (method === 'vimrelay_ask') {
      if (!this.#prompts.answer(args[0], args[1])) this.#logger.debug('unexpected vimrelay_ask event', { editor: this.id });
    } else if (method === 'vimrelay_info') {
      const info = LuaInfo.safeParse(args[0]);
      if (info.success) this.#setInfo(info.data);
      else this.#logger.debug('malformed vimrelay_info event', { editor: this.id });
    }
  }

  #setInfo(lua: LuaInfo): void {
    // Named or not (chosenName) is no field of the wire, yet a change of it is one to announce:
    // named_only lists an editor by it (source.ts).
    const renamed = lua.chosen !== this.#lua.chosen;
    this.#lua = lua;
    const next = wireEditor(this.id, this.#api.version, lua, this.#wait.current, this.#startedAt);
    if (!renamed && JSON.stringify(next) === JSON.stringify(this.#info)) return;
    this.#info = next;
    for (const listener of this.#listeners) listener(this);
  }
}

/**
 * What the Neovim on `connection` waits for its user to answer now (`nvim_get_mode`), or null: a
 * request it would queue (`blocking`), or one of the prompts of `r` modes (hit-enter, more, a
 * question), at which Neovim 0.10+ answers requests (`blocking` false at the swap-file question)
 * though a buffer may be half loaded: it waits for its user all the same.
 */
async function waitingOf(connection: NvimConnection, signal: AbortSignal): Promise<EditorWaiting | null> {
  const mode = Mode.parse(await connection.request('nvim_get_mode', [], signal));
  return mode.blocking || mode.mode.startsWith('r') ? waitingFor(mode.mode) : null;
}

/** Installs lua/core.lua, its helpers and the tools (ONE nvim_exec_lua; see the module header): the info it answers. */
async function install(connection: NvimConnection, api: ApiSummary, signal: AbortSignal): Promise<LuaInfo> {
  return LuaInfo.parse(await connection.request('nvim_exec_lua', [CORE_LUA, [HELPER_SOURCES, TOOL_SOURCES, api.channel, INSTALL_KEY]], signal));
}

/**
 * Whether a tool's answer (its data as one JSON string, below) is over LIMITS.maxResultBytes as
 * the agent read it: the Lua counts its caps in the bytes it sends, cheaply, and each byte that is
 * not UTF-8 becomes a 3-byte U+FFFD here (connection.ts asText), so only an answer that holds a
 * U+FFFD can have grown. One native search of the text on a clean read.
 */
function outgrew(raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null || !('json' in raw) || typeof raw.json !== 'string') return false;
  return raw.json.includes('\uFFFD') && Buffer.byteLength(raw.json) > LIMITS.maxResultBytes;
}

/**
 * A tool's answer with its data as one JSON string (lua/core.lua `M.call`), as the `{ok, data}`
 * the call contract reads; anything else as it came (a failure, or a malformed answer for
 * readResult to refuse).
 */
function fromJson(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || !('json' in raw) || typeof raw.json !== 'string') return raw;
  try {
    return { ok: true, data: JSON.parse(raw.json) as unknown };
  } catch {
    return raw;
  }
}
