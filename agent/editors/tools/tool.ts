/**
 * What the agent knows about one editor tool of the catalog, as ONE record per tool
 * (`agent/editors/tools/<tool>.ts`; ARCHITECTURE.md "Adding a tool"). Both editor adapters run
 * a tool from its record, and the permission policy reads the same record to learn which files a
 * call addresses, whether never_read refuses it or filters its result, and what its prompt shows.
 * Nothing else keys a table by a tool's name.
 *
 * The editor side of a tool is one pair of twin files named after `impl`:
 * `agent/editors/nvim/lua/<impl>.lua` (Neovim) and `plugin/vim/autoload/vimrelay/<impl>.vim`
 * (Vim, function `vimrelay#<impl>#run`). Both take the same parameters, built here from the
 * validated arguments with every default and cap filled in from protocol/limits.ts, so that the
 * editor code never hard-codes one.
 */
import type { ToolInput, ToolSpec } from '../../../protocol/index.ts';
import type { CallControl } from '../call.ts';

/**
 * Which files a call addresses, as both editors resolve them (lua/paths.lua, vimrelay/paths.vim):
 * - `buffer`: the `buffer` argument, else the current buffer;
 * - `buffer_or_none`: the `buffer` argument, else none;
 * - `window_buffer`: the `buffer` argument, else the buffer the `window` argument (else the current
 *   window) shows;
 * - `current`: the current buffer (commands, keys and terminal text act on it);
 * - `path`: the `path` argument;
 * - `buffers_or_loaded`: each of the `buffers` argument, else every loaded buffer;
 * - `diagnosed`: every buffer that has diagnostics, loaded or not (no tool's: never_read asks it
 *   before a call that counts diagnostics over every buffer, policy/never-read.ts);
 * - `none`.
 * A reference that names no buffer counts as the absolute path it names (relative to the editor's
 * cwd); a buffer number that names none, and buffers that are not files (terminal, quickfix,
 * nofile, prompt), count as nothing. Each file counts with its absolute name and its real path.
 */
export const ADDRESSING = ['buffer', 'buffer_or_none', 'window_buffer', 'current', 'path', 'buffers_or_loaded', 'diagnosed', 'none'] as const;
export type Addressing = (typeof ADDRESSING)[number];

/** The only arguments the editors' `paths` function reads (text and diffs never cross for it). */
export const ADDRESSING_ARGS = ['buffer', 'buffers', 'path', 'window'] as const;

/**
 * How never_read filters a result that can show text, size or shape of never_read buffers
 * (policy/never-read.ts): `grep_hits` drops their hits (and searches on past them), `state`
 * empties the context lines of windows showing them and nulls their line counts and ticks,
 * `shape` nulls open_file's line count and tick, `diagnostics` drops their diagnostics,
 * `command_output` replaces output lines that show their lines, `locations` drops the items of
 * its lists that point into never_read files (by their `path`: definitions, reference and rename
 * groups, symbols) and counts them in `withheld`.
 */
export type NeverReadFilter = 'grep_hits' | 'state' | 'shape' | 'diagnostics' | 'command_output' | 'locations';

/** What never_read does with a call of the tool. */
export interface NeverReadRule {
  /**
   * Whether the call is refused when a file it addresses is never_read: tools that return or change
   * a file's content, act on the current buffer (commands, keys), or whose answers tell its line
   * count or line lengths (decorations, cursor moves); false for tools that show nothing of it
   * (open_file, with its `shape` filter; clear_decorations) and for searches over every buffer.
   */
  refuses(args: Record<string, unknown>): boolean;
  /** How its result is filtered before it leaves the agent, when it can show such text. */
  readonly filter?: NeverReadFilter;
  /**
   * Whether the call counts diagnostics over every buffer (get_diagnostics without a buffer,
   * get_state's summary): it is told before it runs which files to leave out of its counts
   * (CallControl.withheldPaths, its `withheld` parameter), since the agent cannot subtract the
   * counts of buffers the result does not list.
   */
  readonly countsDiagnostics?: boolean;
}

/**
 * How the editor answers a call (ARCHITECTURE.md "Adding a tool", PROTOCOL.md "Deferred
 * answers"): `now`, in the one call; or `deferred`: the one call starts the work (a language
 * server's request) and the answer comes later as a message of its own, so that the editor stays
 * usable meanwhile (call.ts `DeferredAnswers`).
 */
export type AnswerMode = 'now' | 'deferred';

/**
 * The second phase of a tool that edits what its first phase found (lsp_rename's apply): run at
 * once after the first phase answered, as ONE call of `impl`, once the agent's policy has vetted
 * the files the first phase would change (CallControl.vetEdits). The editor keeps what the first
 * phase found under its answer's token until then. The call makes the edit at once; it may then
 * defer its answer (`answer_token` in its parameters, as a first phase's), when it starts what
 * must come after the edit and waits on something slower (a code action's server command).
 */
export interface CommitPhase {
  /** The implementation of the second phase (its twin files as any impl's). */
  readonly impl: string;
  /** Whether a call with these arguments has a second phase. */
  when(args: Record<string, unknown>): boolean;
  /** The files the first phase's data says the second would change. */
  changes(data: Record<string, unknown>): string[];
  /** The second phase's parameters: `token` names what the editor kept. */
  params(args: Record<string, unknown>, token: string, call: CallControl): Record<string, unknown>;
}

/**
 * Where a tool's editor parameters and answers hold the text of buffer lines, each a line's text
 * whole or cut (never lines joined), for an editor that carries a line's bytes otherwise than the
 * agent does (Vim holds a NUL as "\n", vim/nul.ts). Each path is keys joined by ".", `*` standing
 * for every element of an array: `params` within either phase's parameters, `answer` within the
 * editor's raw answer (`data.…`, `error.…`). A path that is not there is skipped.
 */
export interface LineTexts {
  readonly params: readonly string[];
  readonly answer: readonly string[];
}

/** One editor tool; see the module header. */
export interface EditorTool<S extends ToolSpec = ToolSpec> {
  readonly spec: S;
  /** The twin files' name: lua/<impl>.lua and autoload/vimrelay/<impl>.vim. */
  readonly impl: string;
  readonly answer: AnswerMode;
  readonly commit?: CommitPhase;
  /** The editor parameters for arguments validated against `spec.input`, undefined ones left out. */
  params(args: Record<string, unknown>, call: CallControl): Record<string, unknown>;
  /** Which files a call with these arguments addresses. */
  addresses(args: Record<string, unknown>): Addressing;
  readonly neverRead: NeverReadRule;
  readonly lineTexts: LineTexts;
  /**
   * What the call would do, in lines a person can judge at a prompt: the commands or keys, the
   * terminal text, the replaced and new text or the diff, the buffer to save, the path to open.
   * Shown whole; it never reads the editor, so it shows only what the model sent.
   */
  preview(args: Record<string, unknown>): string[];
  /** How the tool's edit is reviewed, when it can be; absent: its calls are never shown as a diff. */
  readonly review?: ReviewedAs;
}

/**
 * How an edit is reviewed (README "Reviews"; call.ts `proposeTool`): `copy`, the tool runs on a copy
 * of the one buffer it edits (`creates`: it makes a buffer for a path that has none); `commit`, a
 * two-phase tool's second phase is replaced by `impl`, which says what it would make of each
 * file, when the call has a second phase at all (CommitPhase.when).
 */
export type ReviewedAs = { readonly kind: 'copy'; readonly creates: boolean } | { readonly kind: 'commit'; readonly impl: string };

/** Whether a call of `tool` with `args` can be reviewed. */
export function reviewable(tool: EditorTool, args: Record<string, unknown>): boolean {
  if (tool.review?.kind === 'copy') return true;
  return tool.review?.kind === 'commit' && tool.commit?.when(args) === true;
}

/** A record as written in its file: arguments typed by the tool's input schema. */
export interface EditorToolDefinition<S extends ToolSpec> {
  spec: S;
  impl: string;
  /** Default `now`. */
  answer?: AnswerMode;
  commit?: {
    impl: string;
    when(args: ToolInput<S>): boolean;
    changes(data: Record<string, unknown>): string[];
    params(args: ToolInput<S>, token: string, call: CallControl): Record<string, unknown>;
  };
  params(args: ToolInput<S>, call: CallControl): Record<string, unknown>;
  addresses: Addressing | ((args: ToolInput<S>) => Addressing);
  neverRead: { refuses: boolean | ((args: ToolInput<S>) => boolean); filter?: NeverReadFilter; countsDiagnostics?: boolean };
  /** Default: none. */
  lineTexts?: Partial<LineTexts>;
  preview(args: ToolInput<S>): string[];
  review?: ReviewedAs;
}

/** Defines an editor tool; the casts are sound because every caller passes validated arguments. */
export function defineEditorTool<S extends ToolSpec>(tool: EditorToolDefinition<S>): EditorTool {
  const typed = (args: Record<string, unknown>): ToolInput<S> => args as ToolInput<S>;
  const { addresses, neverRead } = tool;
  const refuses = neverRead.refuses;
  const { commit } = tool;
  return {
    spec: tool.spec,
    impl: tool.impl,
    answer: tool.answer ?? 'now',
    ...(commit === undefined
      ? {}
      : {
          commit: {
            impl: commit.impl,
            when: (args) => commit.when(typed(args)),
            changes: (data) => commit.changes(data),
            params: (args, token, call) => withoutUndefined(commit.params(typed(args), token, call)),
          },
        }),
    params: (args, call) => withoutUndefined(tool.params(typed(args), call)),
    addresses: typeof addresses === 'string' ? () => addresses : (args) => addresses(typed(args)),
    neverRead: {
      refuses: typeof refuses === 'boolean' ? () => refuses : (args) => refuses(typed(args)),
      ...(neverRead.filter === undefined ? {} : { filter: neverRead.filter }),
      ...(neverRead.countsDiagnostics === undefined ? {} : { countsDiagnostics: neverRead.countsDiagnostics }),
    },
    lineTexts: { params: tool.lineTexts?.params ?? [], answer: tool.lineTexts?.answer ?? [] },
    preview: (args) => tool.preview(typed(args)),
    ...(tool.review === undefined ? {} : { review: tool.review }),
  };
}

/**
 * msgpack sends `undefined` as nil, which Lua receives inside a table as `vim.NIL` (truthy), not
 * as a missing key; absent parameters must be absent.
 */
function withoutUndefined(params: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
}
