/**
 * Logging editors as they come and go, for every long-running command (`vimrelay agent`,
 * `vimrelay serve`). Reads the source; never attaches or closes an editor.
 */
import type { Logger } from '../log.ts';
import type { Editor, EditorSource } from './editor.ts';

/**
 * Logs the editors online now, then each one that appears or goes; `onChange` runs after every
 * change. Returns the unsubscribe function.
 */
export function announceEditors(editors: EditorSource, logger: Logger, onChange: () => void = () => {}): () => void {
  let known = new Map<string, Editor>(editors.list().map((e) => [e.id, e]));
  for (const e of known.values()) logger.info('editor online', describe(e));
  return editors.onChange((list) => {
    const next = new Map(list.map((e) => [e.id, e]));
    for (const [id, e] of next) if (!known.has(id)) logger.info('editor online', describe(e));
    for (const [id, e] of known) if (!next.has(id)) logger.info('editor gone', describe(e));
    known = next;
    onChange();
  });
}

function describe(e: Editor): Record<string, unknown> {
  const i = e.info();
  return { id: i.id, kind: i.kind, version: i.version, cwd: i.cwd };
}
