// A call naming a buffer number that no buffer has is answered BUFFER_NOT_FOUND by the policy's
// own question (which files does it address?), on a real Neovim and a real Vim: with every class on
// `ask`, nobody is asked to allow a call that cannot run, and the audit log says `none` was
// decided. A buffer that exists is still asked about.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, PERMISSION_CLASSES } from '../../../protocol/index.ts';
import { readAudit } from '../../../agent/audit/log.ts';
import { Dispatcher } from '../../../agent/calls/dispatcher.ts';
import { DRIVERS, type Driver } from '../../helpers/editors.ts';
import { testGuard } from '../../helpers/policy.ts';

describe.each(DRIVERS)('a buffer number that names no buffer, on %s', (_kind, start) => {
  let d: Driver;
  beforeAll(async () => {
    d = await start({ files: { 'a.txt': 'alpha\n' }, open: ['a.txt'] });
  });
  afterAll(() => d.stop());

  it('is BUFFER_NOT_FOUND before any prompt, audited `none`; an existing buffer is asked about', async () => {
    const { guard, auditFile } = testGuard({ rules: PERMISSION_CLASSES.map((klass) => ({ klass, decision: 'ask' as const })), never_read: [] });
    const dispatcher = new Dispatcher({ get: (id) => (id === d.editor.id ? d.editor : undefined) }, guard);
    let seq = 0;
    const call = (tool: string, args: Record<string, unknown>, deadline_ms = 30_000) =>
      dispatcher.handle({ id: `nsb-${++seq}`, tool, editor: d.editor.id, args, scopes: [...ALL_SCOPES], client: 'test', deadline_ms });
    const cases: [string, Record<string, unknown>][] = [
      ['save_buffer', { buffer: 99 }],
      ['read_buffer', { buffer: 99 }],
      ['grep_buffers', { pattern: 'x', buffers: [1, 99] }],
    ];
    for (const [tool, args] of cases) {
      const outcome = await call(tool, args);
      expect([tool, outcome]).toMatchObject([tool, { ok: false, error: { code: 'BUFFER_NOT_FOUND', message: 'There is no buffer number 99.' } }]);
    }
    expect(readAudit(auditFile, cases.length).map((e) => [e.tool, e.decision, e.outcome])).toEqual(cases.map(([tool]) => [tool, 'none', 'BUFFER_NOT_FOUND']));
    // The same call on a buffer that exists waits on its prompt: unanswered, it times out as asked.
    const asked = await call('read_buffer', { buffer: await d.expr<number>('bufnr("a.txt")') }, 4_000);
    expect(asked).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(readAudit(auditFile, 1)[0]).toMatchObject({ tool: 'read_buffer', decision: 'ask:timeout' });
  });
});
