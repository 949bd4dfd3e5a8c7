/**
 * The set of attached editors, whoever attached them, with change notification. Holds and
 * announces; it never attaches, probes or closes an editor. With `admit`, it lists and gives out
 * only the editors `admit` accepts as of now (config.json's `named_only`): one whose info changes
 * (a name chosen later) comes or goes with the announcement of that change.
 */
import { silentLogger, type Logger } from '../log.ts';
import type { Editor } from './editor.ts';

/** Editors by id, announcing every change to its listeners (whose errors are logged, not thrown). */
export class EditorRegistry {
  readonly #editors = new Map<string, Editor>();
  readonly #listeners = new Set<(editors: readonly Editor[]) => void>();
  readonly #logger: Logger;
  readonly #admit: (editor: Editor) => boolean;

  constructor(logger: Logger = silentLogger, admit: (editor: Editor) => boolean = () => true) {
    this.#logger = logger;
    this.#admit = admit;
  }

  list(): readonly Editor[] {
    return [...this.#editors.values()].filter(this.#admit);
  }

  get(id: string): Editor | undefined {
    const editor = this.#editors.get(id);
    return editor && this.#admit(editor) ? editor : undefined;
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
