/**
 * What the agent needs of one attached editor, whatever its kind. Two adapters implement it:
 * Neovim over msgpack-RPC (nvim/editor.ts) and Vim over its JSON channel (vim/editor.ts); the
 * dispatcher, the policy and the agent-level tools use it (ARCHITECTURE.md "One call, end to end").
 */
import type { ToolOutcome, WireEditor } from '../../protocol/index.ts';
import type { AskAnswer, AskRequest } from '../policy/types.ts';
import type { Hunk } from '../reviews/diff.ts';
import type { Applied, CallControl, Proposal } from './call.ts';
import type { OpenReview, ReviewSpec } from './reviews.ts';
import type { Addressing, EditorTool } from './tools/tool.ts';

export interface Editor {
  /** The agent's own id for this editor, stable while it lives (e.g. `nvim-4242`). */
  readonly id: string;
  readonly kind: WireEditor['kind'];
  /** The latest known description (cwd, current file, ...), refreshed by the adapter. */
  info(): WireEditor;
  /**
   * The name the user gave this editor (`:VimRelayName` / g:vimrelay_name in Neovim,
   * g:vimrelay_name or `:VimRelayConnect {name}` in Vim), or null when its name is only its
   * directory's: the identity "allow always" at a prompt is keyed on (README "Permissions").
   */
  chosenName(): string | null;
  /**
   * Runs one editor tool (its record) with arguments already validated against its input schema,
   * as ONE call into the editor, so that a changedtick guard and its edit are atomic. Resolves
   * with an outcome, never rejects: a tool failure, the editor going away (EDITOR_OFFLINE), the
   * call's signal aborting (TIMEOUT at its deadline, else CANCELLED; call.ts decides).
   */
  run(tool: EditorTool, args: Record<string, unknown>, call: CallControl): Promise<ToolOutcome>;
  /**
   * The absolute file paths a call addresses (`addressing`, from the tool's record, resolved over
   * `args`), each with its real path too when a symlink differs; empty when it addresses none.
   * Rejects when the editor cannot answer (the policy then refuses the call rather than guess),
   * with EditorGone when it went away (the call is then EDITOR_OFFLINE).
   */
  paths(addressing: Addressing, args: Record<string, unknown>, signal: AbortSignal): Promise<string[]>;
  /**
   * Shows a permission prompt inside this editor (prompts.ts) once its earlier prompts are answered,
   * and resolves with the answer; `timeout` when `signal` aborts first. Rejects when the prompt
   * cannot be shown, with EditorGone when the editor went away before an answer.
   */
  ask(request: AskRequest, signal: AbortSignal): Promise<AskAnswer>;
  /**
   * Runs edit tool `tool` on a copy of its buffer, as `run` would run it, for a review: what it
   * would make of the buffer, which does not change (call.ts `proposeTool`).
   */
  propose(tool: EditorTool, args: Record<string, unknown>, call: CallControl, maxLines: number): Promise<Proposal | ToolOutcome>;
  /** Makes a review's accepted hunks in buffer `buf`, refused when its tick is not `expectedTick` (call.ts `applyReviewed`). */
  applyReviewed(buf: number, expectedTick: number, hunks: readonly Hunk[], signal: AbortSignal): Promise<Applied | ToolOutcome>;
  /** Opens review `id` in this editor (reviews.ts); rejects when it cannot, with EditorGone when the editor went away. */
  openReview(id: string, spec: ReviewSpec, signal: AbortSignal): Promise<OpenReview>;
  /** Detaches without touching the editor. */
  close(): Promise<void>;
}

/** A server address a source knows of, attached or not: what connect_editor lists. */
export interface EditorCandidate {
  /** A socket path or host:port. */
  readonly address: string;
  /** The editor's pid when known: attached, or named in the socket (`nvim.<pid>.0`). */
  readonly pid: number | null;
  /** attached: an editor is attached through it; unreachable: the last attempt failed; pending: not tried yet. */
  readonly state: 'attached' | 'unreachable' | 'pending';
  /** The id of the editor attached through it, if any. */
  readonly editor: string | null;
  /** Why the last attempt failed, if it did. */
  readonly error: string | null;
}

/** What `EditorSource.attach` found at an address. */
export interface Attached {
  readonly editor: Editor;
  /** True when that editor was attached before (through this address or another). */
  readonly already: boolean;
}

/** Emits the current set of editors whenever it changes (one appears, exits, or its info changes). */
export interface EditorSource {
  /**
   * Settles once the first discovery pass is over: every Neovim found then attached or given up
   * on (each probe is bounded), and the Vim listener listening. `list()` before it may miss
   * editors that are running.
   */
  readonly ready: Promise<void>;
  list(): readonly Editor[];
  get(id: string): Editor | undefined;
  onChange(listener: (editors: readonly Editor[]) => void): () => void;
  /** Every address known (found by discovery, configured, or attached on request), sorted by address. */
  candidates(): readonly EditorCandidate[];
  /**
   * Attaches the editor at `address` (a socket path, made absolute, or host:port) now, whatever
   * the discovery backoff says, and keeps watching that address. Resolves with the editor attached
   * through it (or the same editor reached through another address); rejects with the reason when
   * nothing usable answers there.
   */
  attach(address: string, signal: AbortSignal): Promise<Attached>;
  stop(): Promise<void>;
}
