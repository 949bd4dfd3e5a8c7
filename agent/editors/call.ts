/**
 * The editor call contract, shared by both adapters and the dispatcher (ARCHITECTURE.md "One call,
 * end to end"): what a call carries into an editor (its abort signal, its deadline, the policy's
 * vetting of edits found on the way), the one error that says the editor went away, the one reader
 * of an editor's `{ok, data}` / `{ok: false, error}` answer, the one place that decides whether a
 * call that did not finish was a TIMEOUT, a CANCELLED, an EDITOR_OFFLINE, an EDITOR_BLOCKED (the
 * editor waits for its user: blocked.ts) or an editor error, and
 * `runTool`, which runs a tool's record through an adapter's `EditorLink`:
 * - `answer: 'now'`: ONE call of the implementation, whose answer is the outcome;
 * - `answer: 'deferred'` (PROTOCOL.md "Deferred answers"): the same ONE call starts the work and
 *   answers `{ok: true, pending: true}` (or the outcome itself, when there was nothing to wait
 *   for); the outcome comes later as a message naming the call's token (`DeferredAnswers.settle`).
 *   Waiting ends with the call's signal, and then the editor is told to cancel the token;
 * - a record's `commit` phase: after the first phase answered, `vetEdits` of the files it would
 *   change, then ONE call of the commit implementation, which answers at once or, when it waits on
 *   something slower (a code action's server command), defers its answer as a first phase does.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ErrorCode, fail, type ToolOutcome, type ToolSpec } from '../../protocol/index.ts';
import type { AssistantAsk } from '../decisions/book.ts';
import type { Hunk } from '../reviews/diff.ts';
import { blockedOutcome, EditorBlocked } from './blocked.ts';
import { parsePaths, pathsParams } from './paths.ts';
import type { EditorTool } from './tools/tool.ts';

/** What an editor is given with each call. */
export interface CallControl {
  /** Aborts waiting: at the deadline (reason `CallDeadline`) or on cancellation (`CallCancelled`). */
  readonly signal: AbortSignal;
  /**
   * The call's deadline, in epoch milliseconds. Tools that must not act behind the caller's back
   * (commands, keys, terminal text, saves) are not started inside the editor after it.
   */
  readonly deadline: number;
  /**
   * The policy's check of the files a two-phase tool's first phase found it would change
   * (tools/tool.ts `CommitPhase`), before it changes them: a refusal, or null to go on; it throws
   * NeedsReview when they are to be reviewed and the call is not. The dispatcher gives the
   * CallGuard's; absent, nothing is vetted.
   */
  readonly vetEdits?: (paths: readonly string[]) => Promise<ToolOutcome | null>;
  /**
   * The files the policy judged this call by (the CallGuard's `paths`). The editor checks, in the
   * same one call and before the tool runs, that the call addresses exactly these (paths.ts), and
   * runs nothing otherwise: `run` then rejects with PathsChanged, naming what it addresses now. So
   * no tool acts on a file the policy did not see, even when the user switched buffers since the
   * check, and the check needs no call of its own when the dispatcher knows the paths already.
   */
  readonly expectPaths?: readonly string[];
  /**
   * Files the call leaves out as if they had no diagnostics, in its counts and totals too: the
   * never_read buffers among those with diagnostics, for a call that counts diagnostics over every
   * buffer (get_diagnostics without a buffer, get_state; policy/never-read.ts). Each is an
   * absolute name or a real path; a buffer is left out when either of its own is one of them.
   */
  readonly withheldPaths?: readonly string[];
  /**
   * Asks the calling client's user (decisions/book.ts AssistantAsk) about a decision the call
   * opens; present only for a client that can be asked (elicitation), which makes `assistant` a
   * surface for this call's decisions when the policy's `ask_via` lets it be.
   */
  readonly assistant?: AssistantAsk;
}

/** The call addresses other files than the policy judged it by (CallControl.expectPaths); nothing ran. */
export class PathsChanged extends Error {
  override name = 'PathsChanged';
  constructor(readonly paths: readonly string[]) {
    super('the call addresses other files than the policy checked');
  }
}

/**
 * A file the call found it would edit is to be reviewed (README "Reviews"), and the call was not
 * run under review; nothing changed, and the dispatcher runs it again under review.
 */
export class NeedsReview extends Error {
  override name = 'NeedsReview';
  constructor() {
    super('a file the call would edit is to be reviewed');
  }
}

/** The abort reason at a call's deadline. */
export class CallDeadline extends Error {
  override name = 'CallDeadline';
  constructor() {
    super('the call reached its deadline');
  }
}

/** The abort reason when the client cancelled the call (or the link that carried it dropped). */
export class CallCancelled extends Error {
  override name = 'CallCancelled';
  constructor() {
    super('the call was cancelled');
  }
}

/** The editor's connection closed (it exited, or its channel or socket broke). */
export class EditorGone extends Error {
  override name = 'EditorGone';
  constructor(what: string) {
    super(`the ${what} connection closed`);
  }
}

/** A control for a call with `ms` left, for callers with no deadline of their own (tests, probes). */
export function controlWithin(ms: number): CallControl {
  return { signal: AbortSignal.timeout(ms), deadline: Date.now() + ms };
}

/** Whether an abort reason is the call's deadline (ours, or an `AbortSignal.timeout`). */
export function isDeadline(reason: unknown): boolean {
  return reason instanceof CallDeadline || (reason instanceof Error && reason.name === 'TimeoutError');
}

/** The outcome of a call stopped by `signal` before it finished: TIMEOUT or CANCELLED. */
export function abortedOutcome(signal: AbortSignal, timeoutHint?: string): ToolOutcome {
  if (isDeadline(signal.reason)) {
    return fail('TIMEOUT', 'The editor did not answer before the deadline.', timeoutHint === undefined ? {} : { hint: timeoutHint });
  }
  return fail('CANCELLED', 'The call was cancelled before the editor answered.');
}

/** The outcome of a call into an editor that threw `error`; `signal` is the call's. */
export function failedOutcome(error: unknown, signal: AbortSignal, spec?: ToolSpec): ToolOutcome {
  if (error instanceof EditorGone) {
    return fail('EDITOR_OFFLINE', 'The editor went away during the call; the change may or may not have been made.');
  }
  if (error instanceof EditorBlocked) return blockedOutcome(error.waitingFor);
  if (signal.aborted && error === signal.reason) return abortedOutcome(signal, spec?.timeoutHint);
  if (error instanceof EditorError) return fail('EDITOR_ERROR', error.message);
  return fail('INTERNAL', error instanceof Error ? error.message : String(error));
}

/** The editor answered a request with an error of its own (not a tool failure). */
export class EditorError extends Error {
  override name = 'EditorError';
}

const EditorResult = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), data: z.record(z.string(), z.unknown()) }),
  z.object({
    ok: z.literal(false),
    error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional() }).catchall(z.unknown()),
  }),
]);

/**
 * The outcome of a tool whose editor function answered `raw`: its error as a tool error (an
 * unknown code becomes INTERNAL), or its data checked against the tool's output schema (a mismatch
 * becomes INTERNAL and the data does not pass). `editor` names the editor kind in messages.
 */
export function readResult(spec: ToolSpec, raw: unknown, editor: string): ToolOutcome {
  const result = EditorResult.safeParse(raw);
  if (!result.success) return fail('INTERNAL', `${editor} returned a malformed result for ${spec.name}.`);
  if (!result.data.ok) {
    const { code, message, ...details } = result.data.error;
    const known = ErrorCode.safeParse(code);
    return fail(known.success ? known.data : 'INTERNAL', message, details);
  }
  const data = spec.output.safeParse(result.data.data);
  if (!data.success) {
    return fail('INTERNAL', `The ${spec.name} result does not match its output schema: ${z.prettifyError(data.error)}`);
  }
  return { ok: true, data: data.data as Record<string, unknown> };
}

/** How long the agent waits for the editor to take a cancellation (best effort). */
const CANCEL_MS = 1_000;

/** What an adapter gives runTool: its one kind of call into the editor, and cancellation. */
export interface EditorLink {
  /** The editor's kind in messages: `Neovim`, `Vim`. */
  readonly name: string;
  /**
   * ONE call of the implementation `impl` with `params`; resolves with the raw `{ok, ...}` answer.
   * `redraw`: the tool may change what the editor shows (it is not read-only), for an editor that
   * does not redraw after a call by itself (Vim). `expect`: run it only if the `paths` function
   * over `params` gives exactly `paths` (CallControl.expectPaths), else answer `paths_changed`.
   */
  invoke(impl: string, params: Record<string, unknown>, signal: AbortSignal, opts: InvokeOptions): Promise<unknown>;
  /** Tells the editor that nobody waits for `token` any more (it cancels the work, drops what it kept). */
  cancel(token: string, signal: AbortSignal): Promise<void>;
  /**
   * How this editor carries the text of buffer lines, when not as the agent does (Vim,
   * vim/nul.ts): `toEditor` over each call's parameters, `fromEditor` over each raw answer, at the
   * places the tool's record names (EditorTool.lineTexts). Absent (Neovim): as they are.
   */
  readonly lineTexts?: {
    toEditor(params: Record<string, unknown>, paths: readonly string[]): Record<string, unknown>;
    fromEditor(raw: unknown, paths: readonly string[]): unknown;
  };
}

/** How one implementation is invoked (EditorLink.invoke). */
export interface InvokeOptions {
  readonly redraw: boolean;
  readonly expect?: { readonly params: Record<string, unknown>; readonly paths: readonly string[] };
  /** Run the edit tool on a copy of its buffer, for a review (proposeTool). */
  readonly propose?: ProposeOptions;
}

/** The answer of a deferred call's first (and only) editor call when the outcome comes later. */
const Pending = z.object({ ok: z.literal(true), pending: z.literal(true) });

/** An editor's answer when the call addresses other files than expected (InvokeOptions.expect). */
const PathsChangedAnswer = z.object({ ok: z.literal(false), paths_changed: z.literal(true), paths: z.unknown() });

/** Throws PathsChanged when `raw` says the call's paths changed; nothing ran then. */
function throwIfPathsChanged(raw: unknown): void {
  if (PathsChangedAnswer.safeParse(raw).success) throw new PathsChanged(parsePaths({ ok: true, data: { paths: (raw as { paths: unknown }).paths } }));
}

/**
 * The deferred answers one editor owes, by token: registered before the call that starts them,
 * settled by the adapter when the editor's message arrives, abandoned when the editor goes away.
 */
export class DeferredAnswers {
  readonly #waiting = new Map<string, (raw: unknown) => void>();
  #gone = false;

  /** Settles the answer `token` with the editor's raw outcome; false when nobody waits for it. */
  settle(token: unknown, raw: unknown): boolean {
    const resolve = typeof token === 'string' ? this.#waiting.get(token) : undefined;
    if (!resolve) return false;
    this.#waiting.delete(token as string);
    resolve(raw);
    return true;
  }

  /** The editor went away: every answer still owed fails EDITOR_OFFLINE, and later ones at once. */
  abandon(): void {
    this.#gone = true;
    for (const resolve of this.#waiting.values()) resolve(GONE);
    this.#waiting.clear();
  }

  /**
   * A fresh token (random: a token an earlier agent left waiting in the editor never matches) and
   * its answer, registered now; the answer rejects with the signal's reason, or EditorGone.
   */
  expect(signal: AbortSignal): { token: string; answer: Promise<unknown>; forget(): void } {
    const token = randomUUID();
    const answer = new Promise<unknown>((resolve, reject) => {
      if (this.#gone) return reject(new EditorGone('editor'));
      const onAbort = (): void => {
        this.#waiting.delete(token);
        reject(signal.reason);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.set(token, (raw) => {
        signal.removeEventListener('abort', onAbort);
        if (raw === GONE) reject(new EditorGone('editor'));
        else resolve(raw);
      });
    });
    // Nobody may await it (an answer given at once); its rejection must not go unhandled.
    answer.catch(() => undefined);
    return { token, answer, forget: () => this.#waiting.delete(token) };
  }
}

const GONE = Symbol('editor gone');

/**
 * The policy's refusal of the files a first phase found (CallControl.vetEdits), or null; the
 * editor drops what it kept under `token` when they are refused or to be reviewed.
 */
async function vetted(link: EditorLink, token: string, call: CallControl, files: string[]): Promise<ToolOutcome | null> {
  const drop = (): Promise<void> => link.cancel(token, AbortSignal.timeout(CANCEL_MS)).catch(() => undefined);
  let refusal: ToolOutcome | null;
  try {
    refusal = (await call.vetEdits?.(files)) ?? null;
  } catch (error) {
    await drop();
    throw error;
  }
  if (refusal) await drop();
  return refusal;
}

/**
 * Runs a tool's record on an editor, as the module header says; resolves with an outcome
 * (failedOutcome decides what an unfinished call was), and rejects only with PathsChanged or
 * NeedsReview.
 */
export async function runTool(link: EditorLink, answers: DeferredAnswers, tool: EditorTool, args: Record<string, unknown>, call: CallControl): Promise<ToolOutcome> {
  const outcome = await execute(link, answers, tool, args, call, null);
  return isProposal(outcome) ? fail('INTERNAL', `${tool.spec.name} answered a proposal when it was run.`) : outcome;
}

/**
 * Runs edit tool `tool` for a review (README "Reviews"; its record's `review`), so that nothing
 * changes: `copy`, ONE call running it on a copy of its buffer (lua/propose.lua,
 * vimrelay/propose.vim); `commit`, its first phase as `runTool` runs it, the files it found vetted,
 * then ONE call of the review's impl in place of the second phase. Resolves with the proposal, or
 * the outcome of a tool that refused (NO_MATCH, STALE_CHANGEDTICK...) or did not finish; rejects
 * only with PathsChanged.
 */
export async function proposeTool(link: EditorLink, answers: DeferredAnswers, tool: EditorTool, args: Record<string, unknown>, call: CallControl, maxLines: number): Promise<Proposal | ToolOutcome> {
  return execute(link, answers, tool, args, call, { maxLines });
}

/** What runTool and proposeTool share: `propose` null runs the tool, else proposes its edit. */
async function execute(link: EditorLink, answers: DeferredAnswers, tool: EditorTool, args: Record<string, unknown>, call: CallControl, propose: { maxLines: number } | null): Promise<ToolOutcome | Proposal> {
  const { signal } = call;
  const { lineTexts } = link;
  const invoke = (impl: string, params: Record<string, unknown>, opts: InvokeOptions): Promise<unknown> =>
    link.invoke(impl, lineTexts ? lineTexts.toEditor(params, tool.lineTexts.params) : params, signal, opts);
  const read = (raw: unknown): ToolOutcome => readResult(tool.spec, lineTexts ? lineTexts.fromEditor(raw, tool.lineTexts.answer) : raw, link.name);
  // The tokens of the deferred answers this call is owed, the first phase's first.
  const tokens: string[] = [];
  /**
   * ONE call of `impl` that may defer its answer: it answers `pending` and settles a token of its
   * own later (a first phase, or a commit phase that waits on a server, as a code action's
   * command does). Answers PathsChanged at once; nothing then waits for the token.
   */
  const deferring = async (impl: string, params: Record<string, unknown>, opts: InvokeOptions): Promise<unknown> => {
    const expected = answers.expect(signal);
    tokens.push(expected.token);
    const started = await invoke(impl, { ...params, answer_token: expected.token }, opts);
    if (PathsChangedAnswer.safeParse(started).success) expected.forget();
    throwIfPathsChanged(started);
    return Pending.safeParse(started).success ? await expected.answer : (expected.forget(), started);
  };
  try {
    const params = tool.params(args, call);
    const opts = { redraw: !tool.spec.annotations.readOnlyHint && propose === null };
    // The first (or only) phase runs on the files the policy saw; a commit phase is vetted instead.
    const first = call.expectPaths === undefined ? opts : { ...opts, expect: { params: pathsParams(tool.addresses(args), args), paths: call.expectPaths } };
    const review = tool.review;
    if (propose && review?.kind === 'copy') {
      const raw = await invoke(tool.impl, params, { ...first, propose: { creates: review.creates, max_lines: propose.maxLines } });
      throwIfPathsChanged(raw);
      return readProposal(tool, link, raw, CopyProposal);
    }
    if (tool.answer === 'now') {
      const raw = await invoke(tool.impl, params, first);
      throwIfPathsChanged(raw);
      return read(raw);
    }
    const outcome = read(await deferring(tool.impl, params, first));
    const token = tokens[0] as string;
    const commit = tool.commit;
    if (!outcome.ok || !commit?.when(args)) return outcome;
    const refusal = await vetted(link, token, call, commit.changes(outcome.data));
    if (refusal) return refusal;
    if (propose && review?.kind === 'commit') return readProposal(tool, link, await invoke(review.impl, commit.params(args, token, call), opts), CommitProposal);
    return read(await deferring(commit.impl, commit.params(args, token, call), opts));
  } catch (error) {
    if (error instanceof PathsChanged || error instanceof NeedsReview) throw error;
    // Whatever the editor started for this call is for nobody now (the deadline, a cancellation).
    if (signal.aborted) for (const token of tokens) void link.cancel(token, AbortSignal.timeout(CANCEL_MS)).catch(() => undefined);
    return failedOutcome(error, signal, tool.spec);
  }
}

/** One file of a proposal: the real buffer, and its text as it is and as the edit would leave it. */
export interface ProposedFile {
  readonly buf: number;
  readonly path: string | null;
  /** The buffer's changedtick and lines when the proposal was made. */
  readonly baseTick: number;
  readonly base: readonly string[];
  /** Its lines as the edit would leave them. */
  readonly proposed: readonly string[];
  /** Whether the buffer was made (or loaded) for the proposal. */
  readonly made: boolean;
}

/** What an edit would make of the buffers it edits (reviews/): nothing changed yet. */
export interface Proposal {
  /** The tool's data, its buffers' changedticks as they are (nothing changed). */
  readonly result: Record<string, unknown>;
  readonly files: readonly ProposedFile[];
}

/** How an edit tool's proposal is made on a copy of its buffer (InvokeOptions.propose). */
export interface ProposeOptions {
  /** The tool makes a buffer for a path that has none (write_buffer). */
  readonly creates: boolean;
  /** Lines of a buffer a proposal copies at most. */
  readonly max_lines: number;
}

const ProposedFileAnswer = z.object({
  buf: z.number().int().positive(),
  path: z.string().nullable(),
  base_tick: z.number().int().nonnegative(),
  base: z.array(z.string()),
  proposed: z.array(z.string()),
  made: z.boolean(),
});

/** A copy's proposal (lua/propose.lua): the tool's data, with its one buffer's texts beside it. */
const CopyProposal = z
  .object({ result: z.record(z.string(), z.unknown()), base_tick: z.number().int().nonnegative(), base: z.array(z.string()), proposed: z.array(z.string()), made: z.boolean() })
  .transform(({ result, base_tick, base, proposed, made }) => ({ result, files: [{ buf: Number(result.buf), path: typeof result.path === 'string' ? result.path : null, base_tick, base, proposed, made }] }));

/** A second phase's proposal (lua/lsp_edit_propose.lua): the tool's data, and each file's texts. */
const CommitProposal = z.object({ result: z.record(z.string(), z.unknown()), files: z.array(ProposedFileAnswer) });

/** The proposal in the editor's raw answer `raw` (as `answer` shapes it), or the tool's failure. */
function readProposal(tool: EditorTool, link: EditorLink, raw: unknown, answer: typeof CopyProposal | typeof CommitProposal): Proposal | ToolOutcome {
  // The tool's own line texts sit under `result` here, and each file's texts are line texts too.
  const texts = ['data.base.*', 'data.proposed.*', 'data.files.*.base.*', 'data.files.*.proposed.*', ...tool.lineTexts.answer.map((path) => path.replace(/^data\./, 'data.result.'))];
  const parsed = EditorResult.safeParse(link.lineTexts ? link.lineTexts.fromEditor(raw, texts) : raw);
  const malformed = fail('INTERNAL', `${link.name} returned a malformed proposal for ${tool.spec.name}.`);
  if (!parsed.success) return malformed;
  if (!parsed.data.ok) return readResult(tool.spec, parsed.data, link.name);
  const proposal = answer.safeParse(parsed.data.data);
  if (!proposal.success) return malformed;
  const result = readResult(tool.spec, { ok: true, data: proposal.data.result }, link.name);
  if (!result.ok) return result;
  const files = proposal.data.files.map((f) => ({ buf: f.buf, path: f.path, baseTick: f.base_tick, base: f.base, proposed: f.proposed, made: f.made }));
  return { result: result.data, files };
}

/** Whether `value` is a proposal (else the outcome of a tool that made none). */
export function isProposal(value: Proposal | ToolOutcome): value is Proposal {
  return !('ok' in value);
}

/** What review_apply answers: the real buffer after the accepted hunks were made. */
export const AppliedAnswer = z.object({
  buf: z.number().int().positive(),
  path: z.string().nullable(),
  changedtick: z.number().int().nonnegative(),
  total_lines: z.number().int().nonnegative(),
});
export type Applied = z.infer<typeof AppliedAnswer>;

/**
 * Makes accepted hunks in buffer `buf` (lua/review_apply.lua, vimrelay/review_apply.vim): ONE
 * call, refused STALE_CHANGEDTICK (nothing changed; its `current_changedtick` and
 * `current_lines` say what the buffer holds now) when the buffer's tick is not `expectedTick`.
 */
export async function applyReviewed(link: EditorLink, buf: number, expectedTick: number, hunks: readonly Hunk[], signal: AbortSignal): Promise<Applied | ToolOutcome> {
  try {
    const params = { buffer: buf, expected_changedtick: expectedTick, hunks: hunks.map((h) => ({ start: h.start, count: h.count, lines: h.lines })) };
    const raw = await link.invoke('review_apply', lineTexts(link, params), signal, { redraw: true });
    const answer = EditorResult.safeParse(link.lineTexts ? link.lineTexts.fromEditor(raw, ['error.current_lines.*']) : raw);
    if (!answer.success) return fail('INTERNAL', `${link.name} returned a malformed answer to applying a review.`);
    if (!answer.data.ok) {
      const { code, message, ...details } = answer.data.error;
      const known = ErrorCode.safeParse(code);
      return fail(known.success ? known.data : 'INTERNAL', message, details);
    }
    const applied = AppliedAnswer.safeParse(answer.data.data);
    return applied.success ? applied.data : fail('INTERNAL', `${link.name} returned a malformed answer to applying a review.`);
  } catch (error) {
    return failedOutcome(error, signal);
  }
}

/** `params` of review_apply as `link` carries line texts (each hunk's lines). */
function lineTexts(link: EditorLink, params: Record<string, unknown>): Record<string, unknown> {
  return link.lineTexts ? link.lineTexts.toEditor(params, ['hunks.*.lines.*']) : params;
}
