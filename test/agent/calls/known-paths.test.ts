// The files a call addresses, which the policy needs before the call runs, on a real Neovim and a
// real Vim through the Dispatcher and a real CallGuard: asked of the editor for the first call,
// then remembered per way of addressing and checked by the editor inside the call itself (no
// round trip of their own); and, by attack, never trusted: when the user has switched the current
// buffer to a never_read file since (after the last call, or between the check and the run), the
// call is decided again on that file and refused, and nothing of it is returned or changed.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, type ToolOutcome } from '../../../protocol/index.ts';
import { Dispatcher } from '../../../agent/calls/dispatcher.ts';
import type { Editor } from '../../../agent/editors/editor.ts';
import { DRIVERS, type Driver } from '../../helpers/editors.ts';
import { testGuard } from '../../helpers/policy.ts';

const SECRET = 'API_TOKEN=sk-live-known-paths-42';

describe.each(DRIVERS)('the files a call addresses, on %s', (_kind, start) => {
  let d: Driver;
  /** How many times the editor was asked which files a call addresses. */
  let asked = 0;
  /** Runs once after the editor next answers `paths` (the user acting between check and run). */
  let afterPaths: (() => Promise<void>) | undefined;

  /** A fresh dispatcher (nothing remembered) over `d`'s editor. */
  const dispatcher = (): Dispatcher => new Dispatcher({ get: (id) => (id === d.editor.id ? d.editor : undefined) }, testGuard().guard);
  const handle = async (on: Dispatcher, tool: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> => {
    const outcome = await on.handle({ id: randomUUID(), tool, editor: d.editor.id, args, scopes: [...ALL_SCOPES], client: 'test', deadline_ms: 30_000 });
    if (!outcome) throw new Error('no outcome');
    expect(JSON.stringify(outcome)).not.toContain('sk-live-known-paths');
    return outcome;
  };

  beforeAll(async () => {
    d = await start({ files: { 'notes.txt': 'public text\n', '.env': `${SECRET}\n` }, open: ['notes.txt', '.env'] });
    // The real editor's own `paths`, counted, and with room for a user acting right after it.
    const editor: Editor = d.editor;
    const paths = editor.paths.bind(editor);
    editor.paths = async (...args) => {
      asked++;
      const answer = await paths(...args);
      const then = afterPaths;
      afterPaths = undefined;
      await then?.();
      return answer;
    };
  });
  afterAll(() => d?.stop());

  it('asks the editor once; the next call addressed the same way runs without asking', async () => {
    const on = dispatcher();
    await d.cursor('notes.txt', 1, 0);
    asked = 0;
    expect(await handle(on, 'read_buffer')).toMatchObject({ ok: true, data: { lines: ['public text'] } });
    expect(asked).toBe(1);
    expect(await handle(on, 'read_buffer')).toMatchObject({ ok: true, data: { lines: ['public text'] } });
    expect(await handle(on, 'read_buffer', { start_line: 1 })).toMatchObject({ ok: true });
    expect(asked).toBe(1);
  });

  it('refuses a read of the current buffer once the user switched it to a never_read file', async () => {
    const on = dispatcher();
    await d.cursor('notes.txt', 1, 0);
    expect(await handle(on, 'read_buffer')).toMatchObject({ ok: true });
    await d.cursor('.env', 1, 0);
    const refused = await handle(on, 'read_buffer');
    expect(refused).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', glob: expect.any(String) } });
    // And back: the files it addresses now are allowed again.
    await d.cursor('notes.txt', 1, 0);
    expect(await handle(on, 'read_buffer')).toMatchObject({ ok: true, data: { lines: ['public text'] } });
  });

  it('refuses an edit of the current buffer once the user switched it to a never_read file; the file is unchanged', async () => {
    const on = dispatcher();
    await d.cursor('notes.txt', 1, 0);
    expect(await handle(on, 'find_and_replace', { old_text: 'public', new_text: 'public' })).toMatchObject({ ok: true });
    await d.cursor('.env', 1, 0);
    const refused = await handle(on, 'find_and_replace', { old_text: 'API_TOKEN', new_text: 'STOLEN' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(await d.lines(await d.bufnr('.env'))).toEqual([SECRET]);
  });

  it('runs nothing on a buffer the user switched to between the check and the run', async () => {
    const on = dispatcher();
    await d.cursor('notes.txt', 1, 0);
    asked = 0;
    afterPaths = () => d.cursor('.env', 1, 0);
    const refused = await handle(on, 'read_buffer');
    expect(refused).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    // The editor said which files, the buffer changed, the call said so instead of running, and
    // the editor was asked again.
    expect(asked).toBe(2);
  });
});
