/**
 * The Vim adapter: one Vim connected over its JSON channel (channel.ts) as an `Editor`.
 *
 * Contract: each `run` is ONE channel call of `vimrelay#call(impl, params, opts)`, so a tool's
 * changedtick guard and its edit run inside one Vim function call (atomic: Vim handles channel
 * messages only between commands); `opts.redraw` asks Vim to show at once what a tool that is not
 * read-only changed (Vim does not redraw after a channel call by itself). Long string parameters
 * are sent ahead in pieces (staging.ts). A NUL in a line's text is U+0000 here and "\n" in Vim
 * (nul.ts). A tool whose record defers its answer gets it later as an `answer` message (call.ts
 * `runTool`).
 * Info is kept fresh by the plugin's info messages; the editor is gone when its channel closes.
 * Every request honours the caller's AbortSignal. While Vim waits for its user (blocked.ts), the
 * plugin runs no call and shows no prompt (`vimrelay#waiting()`): the call is EDITOR_BLOCKED, and
 * the agent asks `vimrelay#waiting()` again until it can be asked, for list_editors.
 */
import { z } from 'zod';
import { EditorWaiting, type ToolOutcome, type WireEditor } from '../../../protocol/index.ts';
import { silentLogger, type Logger } from '../../log.ts';
import type { AskAnswer, AskRequest } from '../../policy/types.ts';
import type { Hunk } from '../../reviews/diff.ts';
import { EditorBlocked, WaitWatch } from '../blocked.ts';
import { processStartedAt } from '../process-start.ts';
import { applyReviewed, DeferredAnswers, proposeTool, runTool, type Applied, type CallControl, type EditorLink, type InvokeOptions, type Proposal } from '../call.ts';
import type { Editor } from '../editor.ts';
import { parsePaths, pathsParams } from '../paths.ts';
import { editorPromptOptions, EditorPrompts } from '../prompts.ts';
import { EditorReviews, type OpenReview, type ReviewSpec } from '../reviews.ts';
import type { Addressing, EditorTool } from '../tools/tool.ts';
import type { VimChannel } from './channel.ts';
import { VimInfoMessage, vimVersion, wireVimEditor, type VimHello, type VimInfo } from './hello.ts';
import { nulsFromVim, nulsToVim } from './nul.ts';
import { stageJson, stageParams } from './staging.ts';

/** A prompt's answer from plugin/vim/autoload/vimrelay/ask.vim (EditorPrompts checks the answer itself). */
const VimAskMessage = z.object({ type: z.literal('ask'), id: z.string(), answer: z.unknown() });

/** A call the plugin did not run because Vim waits for its user (autoload/vimrelay.vim `vimrelay#call`). */
const VimBlocked = z.object({ ok: z.literal(false), error: z.object({ code: z.literal('EDITOR_BLOCKED'), waiting_for: EditorWaiting }) });

/** The prompt or review the plugin did not open, for the same reason (autoload/vimrelay/ask.vim, review.vim). */
const VimAskBlocked = z.object({ waiting_for: EditorWaiting });

/** A review's answer from plugin/vim/autoload/vimrelay/review.vim (EditorReviews checks the answer itself). */
const VimReviewMessage = z.object({ type: z.literal('review'), id: z.string(), answer: z.unknown() });

/** A deferred call's outcome (autoload/vimrelay/util/deferred.vim); call.ts reads the outcome. */
const VimAnswerMessage = z.object({ type: z.literal('answer'), token: z.string(), outcome: z.unknown() });

/** One connected Vim; see the module header. */
export class VimEditor implements Editor {
  readonly kind = 'vim' as const;
  /** `vim-<pid>`. */
  readonly id: string;
  /** The instance id from the hello (stable across reconnects of one Vim process). */
  readonly instance: string;
  /** Settles when the channel has closed. */
  readonly exited: Promise<void>;
  readonly #channel: VimChannel;
  readonly #version: string;
  readonly #name: string;
  readonly #logger: Logger;
  readonly #listeners = new Set<(editor: VimEditor) => void>();
  /** The prompts shown in this Vim (autoload/vimrelay/ask.vim); their answers come as `ask` messages. */
  readonly #prompts: EditorPrompts;
  /** The reviews open in this Vim (autoload/vimrelay/review.vim); their answers come as `review` messages. */
  readonly #reviews: EditorReviews;
  /** The answers of deferred calls; they come as `answer` messages. */
  readonly #answers = new DeferredAnswers();
  readonly #link: EditorLink;
  /** What it waits for its user to answer, if it does (blocked.ts). */
  readonly #wait: WaitWatch;
  #vimInfo: VimInfo;
  #info: WireEditor;
  /** When its process started (process-start.ts), read once. */
  readonly #startedAt: number | null;
  /** The name the user chose (before any `#2` suffix), or null when it is the cwd's tail. */
  readonly #chosenName: string | null;
  #staged = 0;

  constructor(channel: VimChannel, hello: VimHello, name: string, logger: Logger = silentLogger) {
    this.#channel = channel;
    this.#version = vimVersion(hello.version);
    this.#name = name;
    this.#logger = logger;
    this.instance = hello.instance;
    this.id = `vim-${hello.pid}`;
    this.#vimInfo = hello;
    this.#startedAt = processStartedAt(hello.pid);
    this.#info = wireVimEditor(this.id, this.#version, name, hello, null, this.#startedAt);
    this.#wait = new WaitWatch(async (signal) => waitingOf(await channel.expr('vimrelay#waiting()', signal)), () => this.#setInfo(this.#vimInfo));
    this.#chosenName = hello.chosen ? hello.name : null;
    this.exited = channel.closed;
    this.#prompts = new EditorPrompts({
      open: async (id, lines, options, signal) => {
        // The popup's window id; anything else (0 without +popupwin, "ERROR" from a failed call) means no prompt.
        const winid = this.#blockedBy(await channel.call('vimrelay#ask#open', [id, lines, editorPromptOptions(options)], signal), VimAskBlocked);
        if (typeof winid !== 'number' || winid <= 0) throw new Error('this Vim cannot show a popup (it needs +popupwin)');
      },
      close: async (id, notice, signal) => void (await channel.call('vimrelay#ask#close', [id, notice], signal)),
    });
    this.#reviews = new EditorReviews({
      open: async (id, spec, signal) => void this.#blockedBy(await channel.call('vimrelay#review#open', [id, nulsToVim({ ...spec }, ['proposed.*'])], signal), VimAskBlocked),
      close: async (id, message, signal) => void (await channel.call('vimrelay#review#close', [id, message], signal)),
      expire: async (id, signal) => void (await channel.call('vimrelay#review#expire', [id], signal)),
    });
    void channel.closed.then(() => {
      this.#wait.close();
      this.#prompts.abandon('Vim channel');
      this.#reviews.abandon('Vim channel');
      this.#answers.abandon();
    });
    this.#link = {
      name: 'Vim',
      invoke: (impl, params, signal, opts) => this.#invoke(impl, params, signal, opts),
      cancel: async (token, signal) => void (await channel.call('vimrelay#util#deferred#cancel', [token], signal)),
      // A NUL in a line is "\n" in Vim's strings (nul.ts).
      lineTexts: { toEditor: nulsToVim, fromEditor: nulsFromVim },
    };
    channel.onMessage((_id, payload) => this.#onMessage(payload));
  }

  get isClosed(): boolean {
    return this.#channel.isClosed;
  }

  info(): WireEditor {
    return this.#info;
  }

  chosenName(): string | null {
    return this.#chosenName;
  }

  /** Calls `listener` whenever `info()` changes. Returns the unsubscribe function. */
  onInfoChange(listener: (editor: VimEditor) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Asks Vim whether it waits for its user (it may have connected at a prompt), for `info()`. */
  async checkWaiting(signal: AbortSignal): Promise<void> {
    this.#wait.set(waitingOf(await this.#channel.expr('vimrelay#waiting()', signal)));
  }

  run(tool: EditorTool, args: Record<string, unknown>, call: CallControl): Promise<ToolOutcome> {
    return runTool(this.#link, this.#answers, tool, args, call);
  }

  /**
   * ONE channel call of `vimrelay#call(impl, params, opts)`, its long strings sent ahead in pieces;
   * `redraw`: Vim redraws after a channel call only when told to, after any tool that may change
   * the screen; `expect`, see InvokeOptions.
   */
  async #invoke(impl: string, raw: Record<string, unknown>, signal: AbortSignal, { redraw, expect, propose }: InvokeOptions): Promise<unknown> {
    const newId = (): string => String(++this.#staged);
    const { params, pieces } = stageJson(stageParams(raw, newId), newId);
    try {
      await Promise.all(pieces.map(([id, piece]) => this.#channel.call('vimrelay#stage', [id, piece], signal)));
      signal.throwIfAborted();
    } catch (error) {
      // The call that would take its pieces will not be sent (cancelled, or past its deadline):
      // Vim drops those that reached it, this message following them on the channel.
      if (pieces.length > 0) this.#channel.notify('vimrelay#unstage', [[...new Set(pieces.map(([id]) => id))]]);
      throw error;
    }
    // `now`: this clock as the call leaves, which Vim's deadline checks (start_by) keep in step with.
    const opts = { now: Date.now(), ...(redraw ? { redraw: 1 } : {}), ...(expect === undefined ? {} : { expect }), ...(propose === undefined ? {} : { propose }) };
    const answer = this.#blockedBy(await this.#channel.call('vimrelay#call', [impl, params, opts], signal), VimBlocked);
    // Over TCP, Vim would hold its next small message (the deferred answer) until this reply is
    // acknowledged (Nagle's algorithm in Vim, the delayed ACK here: ~40 ms). Any bytes from the
    // agent carry the ACK at once; a message with id 0 goes to the plugin's ignored callback.
    if (params.answer_token !== undefined) this.#channel.send(0, 'ack');
    return answer;
  }

  /** Evaluates a Vim expression through the channel (Vim's own "expr" command) and returns its value. */
  evaluate(expr: string, signal: AbortSignal): Promise<unknown> {
    return this.#channel.expr(expr, signal);
  }

  async paths(addressing: Addressing, args: Record<string, unknown>, signal: AbortSignal): Promise<string[]> {
    return parsePaths(this.#blockedBy(await this.#channel.call('vimrelay#call', ['paths', pathsParams(addressing, args)], signal), VimBlocked));
  }

  ask(request: AskRequest, signal: AbortSignal): Promise<AskAnswer> {
    return this.#prompts.ask(request, signal);
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

  async close(): Promise<void> {
    await this.#channel.close();
  }

  #onMessage(payload: unknown): void {
    const review = VimReviewMessage.safeParse(payload);
    if (review.success) {
      // A NUL in an accepted line is "\n" in Vim's strings (nul.ts).
      if (!this.#reviews.answer(review.data.id, nulsFromVim(review.data.answer, ['lines.*']))) this.#logger.debug('unexpected review answer from Vim', { editor: this.id });
      return;
    }
    const ask = VimAskMessage.safeParse(payload);
    if (ask.success) {
      if (!this.#prompts.answer(ask.data.id, ask.data.answer)) this.#logger.debug('unexpected prompt answer from Vim', { editor: this.id });
      return;
    }
    const answer = VimAnswerMessage.safeParse(payload);
    if (answer.success) {
      if (!this.#answers.settle(answer.data.token, answer.data.outcome)) this.#logger.debug('unexpected deferred answer from Vim', { editor: this.id });
      return;
    }
    const info = VimInfoMessage.safeParse(payload);
    if (!info.success) {
      this.#logger.debug('unexpected message from Vim', { editor: this.id });
      return;
    }
    this.#setInfo(info.data);
  }

  /**
   * `answer` as it came, once it says Vim could be asked (the waiting state cleared); throws
   * EditorBlocked when it says, as `refusal` has it, that Vim waits for its user.
   */
  #blockedBy(answer: unknown, refusal: typeof VimBlocked | typeof VimAskBlocked): unknown {
    const blocked = refusal.safeParse(answer);
    if (!blocked.success) {
      this.#wait.set(null);
      return answer;
    }
    const waiting = 'error' in blocked.data ? blocked.data.error.waiting_for : blocked.data.waiting_for;
    this.#wait.set(waiting);
    throw new EditorBlocked(waiting);
  }

  #setInfo(info: VimInfo): void {
    this.#vimInfo = info;
    const next = wireVimEditor(this.id, this.#version, this.#name, info, this.#wait.current, this.#startedAt);
    if (JSON.stringify(next) === JSON.stringify(this.#info)) return;
    this.#info = next;
    for (const listener of this.#listeners) listener(this);
  }
}

/** What `vimrelay#waiting()` answered, or null ('' while Vim can be asked). */
function waitingOf(raw: unknown): EditorWaiting | null {
  const waiting = EditorWaiting.safeParse(raw);
  return waiting.success ? waiting.data : null;
}
