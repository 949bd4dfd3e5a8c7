/**
 * The status file of `vimrelay serve` (config/status.ts ServeStatus): written when it starts and
 * whenever its editors change, removed when it stops if it is still this process's (a newer
 * `serve` may have taken it over), so that `:checkhealth vimrelay` can tell an editor it is served
 * locally.
 */
import { rmSync } from 'node:fs';
import { readOptionalFile } from '../config/private-file.ts';
import { ServeStatus, writeStatus } from '../config/status.ts';
import type { EditorSource } from '../editors/editor.ts';
import type { Logger } from '../log.ts';

/**
 * Keeps `file` current for this process; the returned function stops and removes it. A write that
 * fails (no descriptor left, a full disk) is logged, never thrown into the editors' events.
 */
export function publishServeStatus(
  file: string,
  transport: ServeStatus['transport'],
  url: string | null,
  editors: EditorSource,
  watching: readonly string[],
  logger: Logger,
): () => void {
  const save = (): void => {
    try {
      saveNow();
    } catch (error) {
      logger.warn('cannot write the status file', { file, error: error instanceof Error ? error.message : String(error) });
    }
  };
  const saveNow = (): void =>
    writeStatus(file, {
      pid: process.pid,
      transport,
      url,
      editors: editors.list().map((e) => {
        const i = e.info();
        return { id: i.id, kind: i.kind, name: i.name, cwd: i.cwd, pid: i.pid };
      }),
      watching: [...watching],
      updated_at: new Date().toISOString(),
    });
  save();
  const unsubscribe = editors.onChange(save);
  return () => {
    unsubscribe();
    const text = readOptionalFile(file);
    const current = text === undefined ? undefined : ServeStatus.safeParse(JSON.parse(text));
    if (current?.success && current.data.pid === process.pid) rmSync(file, { force: true });
  };
}
