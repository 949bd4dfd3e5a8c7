// The agent's last line of defence, against a real Neovim: arguments validated again, scopes as an
// upper bound, a call id never applied twice, the deadline answering for a blocked editor, and a
// call that arrives past its deadline (it waited in a stalled agent) not run at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../../protocol/index.ts';
import { EditorRegistry } from '../../../agent/editors/registry.ts';
import { Dispatcher } from '../../../agent/calls/dispatcher.ts';
import { nvimDriver, type NvimDriver } from '../../helpers/editors.ts';
import { testGuard } from '../../helpers/policy.ts';

let fx: NvimDriver;
let dispatcher: Dispatcher;
let seq = 0;

const call = (tool: string, args: Record<string, unknown>, extra: { id?: string; scopes?: string[]; deadline_ms?: number } = {}) => ({
  type: 'call' as const,
  id: extra.id ?? `call-${++seq}`,
  tool,
  editor: fx.editor.id,
  args,
  scopes: extra.scopes ?? [...ALL_SCOPES],
  client: 'test',
  deadline_ms: extra.deadline_ms ?? 10_000,
});

beforeAll(async () => {
  fx = await nvimDriver({ files: { 'a.txt': 'count: 1\n' }, open: ['a.txt'] });
  const registry = new EditorRegistry();
  registry.add(fx.editor);
  dispatcher = new Dispatcher(registry, testGuard().guard);
});
afterAll(async () => {
  await fx?.stop();
});

describe('Dispatcher', () => {
  it('never applies one call id twice: the repeat gets the remembered outcome', async () => {
    const edit = call('find_and_replace', { old_text: 'count: 1', new_text: 'count: 1+' }, { id: 'same-id' });
    const first = await dispatcher.handle(edit);
    expect(first?.ok).toBe(true);
    const again = await dispatcher.handle(edit);
    expect(again).toEqual(first);
    expect(await fx.lines(0)).toEqual(['count: 1+']);
  });

  it('ignores a repeat of a call that is still running', async () => {
    const read = call('read_buffer', {}, { id: 'running-id' });
    const [a, b] = await Promise.all([dispatcher.handle(read), dispatcher.handle(read)]);
    expect(a?.ok).toBe(true);
    expect(b).toBeUndefined();
  });

  it('treats the token scopes as an upper bound', async () => {
    const outcome = await dispatcher.handle(call('find_and_replace', { old_text: 'count', new_text: 'n' }, { scopes: ['read'] }));
    expect(outcome).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(await fx.lines(0)).toEqual(['count: 1+']);
  });

  it('validates arguments again, whatever the relay checked', async () => {
    const outcome = await dispatcher.handle(call('read_buffer', { start_line: -3 }));
    expect(outcome).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
  });

  it('answers an unknown editor as offline and an unknown tool as unsupported', async () => {
    expect(await dispatcher.handle({ ...call('read_buffer', {}), editor: 'nvim-0' })).toMatchObject({ ok: false, error: { code: 'EDITOR_OFFLINE' } });
    expect(await dispatcher.handle(call('no_such_tool', {}))).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED' } });
  });

  it('answers TIMEOUT at the deadline when the editor is blocked, and CANCELLED on cancel', async () => {
    // The editor is busy (a blocking sleep in Lua): it cannot answer RPC requests until it ends.
    await fx.nvim.busy(1500);
    const timedOut = await dispatcher.handle(call('read_buffer', {}, { deadline_ms: 300 }));
    expect(timedOut).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });

    const pending = dispatcher.handle(call('read_buffer', {}, { id: 'to-cancel' }));
    dispatcher.cancel('to-cancel');
    expect(await pending).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    // Once the editor is free again, calls go through.
    expect(await dispatcher.handle(call('read_buffer', {}))).toMatchObject({ ok: true });
  });

  it('does nothing with a call that arrives with no time left, and says so', async () => {
    const before = await fx.lines(0);
    for (const deadline_ms of [0, -5_000]) {
      const late = await dispatcher.handle(call('find_and_replace', { old_text: 'count', new_text: 'late' }, { deadline_ms }));
      expect(late).toMatchObject({ ok: false, error: { code: 'TIMEOUT', message: expect.stringContaining('after its deadline') } });
    }
    expect(await fx.lines(0)).toEqual(before);
  });
});
