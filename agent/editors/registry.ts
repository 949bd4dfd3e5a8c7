/**
 * The set of attached editors, whoever attached them, with change notification. Holds and
 * announces; it never attaches, probes or closes an editor.
 */
import { silentLogger, type Logger } from '../log.ts';
import type { Editor } from './editor.ts';

/** Editors by id, announcing every change to its listeners (whose errors are logged, not thrown). */
export class EditorRegistry {
  readonly #editors = new Map<string, Editor>();
  readonly #listeners = new Set<(editors: readonly Editor[]) => void>();
  readonly #logger: Logger;

  constructor(logger: Logger = silentLogger) {
    this.#logger = logger;
  }

  list(): readonly Editor[] {
    return [...this.#editors.values()];
  }

  get(id: string): Editor | undefined {
    return this.#editors.get(id);
  }

  /** Calls `listener` with the full list after every change. Returns the unsubscribe function. */
  onChange(listener: (editors: readonly Editor[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Adds an editor (replacing one with the same id) and announces the change. */
  add(editor: Editor): void {
    this.#editors.set(editor.id, editor);
    this.changed();
  }

  /** Removes this editor, if it is the one registered under its id, and announces the change. */
  remove(editor: Editor): void {
    if (this.#editors.get(editor.id) !== editor) return;
    this.#editors.delete(editor.id);
    this.changed();
  }

  /** Announces the current list, e.g. after an editor's info changed. */
  changed(): void {
    const editors = this.list();
    for (const listener of this.#listeners) {
      try {
        listener(editors);
      } catch (error) {
        this.#logger.error('editor change listener failed', { error: String(error) });
      }
    }
  }
}
