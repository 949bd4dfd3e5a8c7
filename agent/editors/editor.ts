/**
 * What the agent needs of one attached editor, whatever its kind. Adapters (Neovim over
 * msgpack-RPC; Vim over its channel, later) implement it; tools and the relay connection use it.
 */
import type { ToolOutcome, WireEditor } from '../../protocol/index.ts';

export interface Editor {
  /** The agent's own id for this editor, stable while it lives (e.g. `nvim-4242`). */
  readonly id: string;
  readonly kind: WireEditor['kind'];
  /** The latest known description (cwd, current file, ...), refreshed by the adapter. */
  info(): WireEditor;
  /**
   * Runs one catalog tool whose arguments are already validated against its input schema.
   * Resolves with an outcome (never rejects for tool failures); `signal` aborts waiting.
   */
  run(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutcome>;
  /** Detaches without touching the editor. */
  close(): Promise<void>;
}

/** Emits the current set of editors whenever it changes (one appears, exits, or its info changes). */
export interface EditorSource {
  list(): readonly Editor[];
  get(id: string): Editor | undefined;
  onChange(listener: (editors: readonly Editor[]) => void): () => void;
  stop(): Promise<void>;
}
