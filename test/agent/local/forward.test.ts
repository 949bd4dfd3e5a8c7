// Local mode's routing (agent/local/forward.ts) against a real Neovim: the relay's editor ids with
// the hostname as device, the local id accepted, the relay's routing errors, and cancellation by
// signal or by the client's request key, before or during the call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectEditor, readBuffer, findAndReplace, listEditors, type ToolSpec } from '../../../protocol/index.ts';
import type { McpToolCall } from '../../../protocol/mcp-server.ts';
import type { EditorSource } from '../../../agent/editors/editor.ts';
import { EditorRegistry } from '../../../agent/editors/registry.ts';
import { LocalForwarder } from '../../../agent/local/forward.ts';
import { nvimDriver, type NvimDriver } from '../../helpers/editors.ts';
import { testGuard } from '../../helpers/policy.ts';

let fx: NvimDriver;
let registry: EditorRegistry;
let forwarder: LocalForwarder;

const source = (r: EditorRegistry): EditorSource => ({
  ready: Promise.resolve(),
  list: () => r.list(),
  get: (id) => r.get(id),
  onChange: (listener) => r.onChange(listener),
  candidates: () => [],
  attach: () => Promise.reject(new Error('this test attaches nothing')),
  stop: async () => {},
});
const call = (spec: ToolSpec, args: Record<string, unknown> = {}): McpToolCall => ({
  spec,
  args,
  ...(typeof args.editor === 'string' ? { editor: args.editor } : {}),
});
const live = (): { signal: AbortSignal } => ({ signal: new AbortController().signal });

beforeAll(async () => {
  fx = await nvimDriver({ files: { 'a.txt': 'héllo 日本\n' }, open: ['a.txt'] });
  registry = new EditorRegistry();
  registry.add(fx.editor);
  forwarder = new LocalForwarder({ editors: source(registry), device: 'box', client: 'test', guard: testGuard().guard });
});
afterAll(async () => {
  await fx?.stop();
});

describe('LocalForwarder', () => {
  it('lists editors as the relay does, with the device in the id', async () => {
    const outcome = await forwarder.run(call(listEditors), live());
    const info = fx.editor.info();
    expect(outcome).toEqual({
      ok: true,
      data: {
        editors: [{ id: `box/${info.id}`, device: 'box', kind: 'nvim', version: info.version, name: info.name, cwd: info.cwd, current_file: info.current_file, pid: info.pid, waiting_for: null, ui: false, uptime_s: expect.any(Number) }],
        count: 1,
      },
    });
  });

  it('routes by full id, by local id, or to the only editor', async () => {
    for (const editor of [`box/${fx.editor.id}`, fx.editor.id, undefined]) {
      const outcome = await forwarder.run(call(readBuffer, editor === undefined ? {} : { editor }), live());
      expect(outcome, String(editor)).toMatchObject({ ok: true, data: { lines: ['héllo 日本'] } });
    }
  });

  it('answers the relay\'s routing errors', async () => {
    expect(await forwarder.run(call(readBuffer, { editor: 'other/nvim-1' }), live())).toMatchObject({
      ok: false,
      error: { code: 'EDITOR_NOT_FOUND', editors: [`box/${fx.editor.id}`] },
    });
    const empty = new LocalForwarder({ editors: source(new EditorRegistry()), device: 'box', client: 'test', guard: testGuard().guard });
    expect(await empty.run(call(readBuffer), live())).toMatchObject({ ok: false, error: { code: 'NO_EDITOR' } });
    expect(await forwarder.run(call(connectEditor, { device: 'elsewhere' }), live())).toMatchObject({
      ok: false,
      error: { code: 'EDITOR_NOT_FOUND', devices: ['box'] },
    });
  });

  it('runs agent-level tools on this agent, with or without its device name', async () => {
    for (const args of [{}, { device: 'box' }]) {
      expect(await forwarder.run(call(connectEditor, args), live()), JSON.stringify(args)).toMatchObject({
        ok: true,
        data: { action: 'listed', candidates: [], candidates_total: 0 },
      });
    }
  });

  it('does not run a call whose signal is already aborted', async () => {
    const aborted = AbortSignal.abort();
    const outcome = await forwarder.run(call(findAndReplace, { old_text: 'héllo', new_text: 'bye' }), { signal: aborted });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    expect(await fx.lines(0)).toEqual(['héllo 日本']);
  });

  it('cancels a call in flight by its key, and only while it runs', async () => {
    await fx.nvim.busy(1500);
    const pending = forwarder.run(call(readBuffer), { ...live(), key: '7' });
    expect(forwarder.cancel('8')).toBe(false);
    expect(forwarder.cancel('7')).toBe(true);
    expect(await pending).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    expect(forwarder.cancel('7')).toBe(false);
    expect(await forwarder.run(call(readBuffer), live())).toMatchObject({ ok: true });
  });
});
