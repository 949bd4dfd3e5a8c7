// Reviews (README "Reviews") on a real Neovim and a real Vim in Normal mode, through the
// dispatcher as a client's call reaches them, answered as the user does (keys, commands, their own
// edits): a write the policy sends to review changes nothing until the user accepts it; accepted
// as proposed, it is applied as one undo step and the model hears "accepted"; changed by the user
// first, it is applied as they left it and the model gets the diff of their changes; rejected
// (with a reason, or by closing the tab) nothing changes and the model hears why; the user's own
// typing in the buffer meanwhile is kept, merged when it is elsewhere and a conflict (nothing
// applied) when it meets the proposal; a decision slower than the call's timeout_ms answers
// "pending", and review_status gives the outcome later (audited as the editor's decision); an
// undecided review expires; the model can ask for a review but never skip one the policy asks for;
// write_buffer of a new file is reviewed too; two reviews wait side by side, and get_state lists them;
// no tool edits a proposal while the user decides on it (the attack: a path rule that reviews only
// the file, so that edits of the proposal's own buffer are allowed, and the model's change to it
// would be accepted as the user's).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, PERMISSION_CLASSES, type ToolOutcome } from '../../../protocol/index.ts';
import { readAudit } from '../../../agent/audit/log.ts';
import { Dispatcher } from '../../../agent/calls/dispatcher.ts';
import type { Rule } from '../../../agent/policy/types.ts';
import { NORMAL_DRIVERS, waitFor, type Driver } from '../../helpers/editors.ts';
import { testGuard } from '../../helpers/policy.ts';
import { proposalBuffer, reviewShown, reviewStates } from '../../helpers/review-view.ts';

const TEXT = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'];

function rules(write: Rule['decision']): Rule[] {
  return PERMISSION_CLASSES.map((klass) => ({ klass, decision: klass === 'write' ? write : 'allow' }));
}

describe.each(NORMAL_DRIVERS)('a review on %s', (_kind, start) => {
  let d: Driver;
  let buf: number;
  let auditFile: string;
  let reviewing: Dispatcher;
  let seq = 0;
  const call = (dispatcher: Dispatcher, tool: string, args: Record<string, unknown>): Promise<ToolOutcome | undefined> =>
    dispatcher.handle({ id: `review-${++seq}`, tool, editor: d.editor.id, args, scopes: [...ALL_SCOPES], client: 'claude-test', deadline_ms: 30_000 });
  const replace = async (dispatcher: Dispatcher, oldText: string, newText: string, more: Record<string, unknown> = {}): Promise<ToolOutcome | undefined> =>
    call(dispatcher, 'find_and_replace', { buffer: 'notes.txt', old_text: oldText, new_text: newText, expected_changedtick: await d.tick(buf), ...more });
  /** A find_and_replace of `two` from another client than claude-test. */
  const dispatcherCall = async (dispatcher: Dispatcher, client: { client: string; client_name: string }): Promise<ToolOutcome | undefined> =>
    dispatcher.handle({
      id: `review-${++seq}`,
      tool: 'find_and_replace',
      editor: d.editor.id,
      args: { buffer: 'notes.txt', old_text: 'two', new_text: 'TWO', expected_changedtick: await d.tick(buf) },
      scopes: [...ALL_SCOPES],
      ...client,
      deadline_ms: 30_000,
    });
  const enter = (keys: string): Promise<void> => d.type(`${keys}${d.kind === 'nvim' ? '<CR>' : '\r'}`);
  const tabs = (): Promise<number> => d.expr<number>("tabpagenr('$')");

  beforeAll(async () => {
    d = await start({ files: { 'notes.txt': `${TEXT.join('\n')}\n` }, open: ['notes.txt'] });
    buf = await d.bufnr('notes.txt');
    const fixture = testGuard({ rules: rules('review'), never_read: [] });
    auditFile = fixture.auditFile;
    reviewing = new Dispatcher({ get: (id) => (id === d.editor.id ? d.editor : undefined) }, fixture.guard);
  });
  afterAll(() => d?.stop());
  afterEach(async () => {
    // The file as it was, every review gone, one tab.
    await waitFor(async () => ((await reviewStates(d)).length === 0 ? true : undefined), 10_000, 'no review left');
    await d.command(`call setbufline(${buf}, 1, ${JSON.stringify(TEXT)})`);
    await d.command(`silent! call deletebufline(${buf}, ${TEXT.length + 1}, '$')`);
    expect(await tabs()).toBe(1);
  });

  it('changes nothing until the user accepts, then applies the proposal as one undo step; the model hears "accepted"', async () => {
    const before = await d.tick(buf);
    const outcome = replace(reviewing, 'two', 'TWO');
    const review = await reviewShown(d);
    expect(await d.lines(await proposalBuffer(d, review.id))).toEqual(['one', 'TWO', ...TEXT.slice(2)]);
    expect(await d.lines(buf)).toEqual(TEXT);
    expect(await d.tick(buf)).toBe(before);
    expect(await tabs()).toBe(2);
    await d.type('ZA');
    const result = await outcome;
    expect(result).toMatchObject({ ok: true, data: { buf, changedtick: await d.tick(buf), review: { id: review.id, decision: 'accepted' } } });
    expect(result?.ok && result.data.review).not.toHaveProperty('user_changes');
    expect(await d.lines(buf)).toEqual(['one', 'TWO', ...TEXT.slice(2)]);
    await waitFor(async () => ((await tabs()) === 1 ? true : undefined), 10_000, 'the review tab to close');
    expect(readAudit(auditFile, 1)[0]).toMatchObject({ tool: 'find_and_replace', decision: 'review:accepted', outcome: 'ok' });
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual(TEXT);
  });

  it('applies the proposal as the user changed it, and gives the model the diff of their changes', async () => {
    const outcome = replace(reviewing, 'two', 'TWO');
    const review = await reviewShown(d);
    // The user takes a line of their own into the proposal and types another.
    await d.expr(`setbufline(${await proposalBuffer(d, review.id)}, 4, 'FOUR, said the user')`);
    await enter(':VimRelayAccept');
    const result = await outcome;
    expect(result).toMatchObject({ ok: true, data: { review: { decision: 'accepted_with_changes', user_changes: expect.stringContaining('-four\n+FOUR, said the user\n') } } });
    expect(result?.ok && result.data.review).toMatchObject({ user_changes: expect.stringMatching(/^--- proposal\n\+\+\+ applied\n@@ /) });
    expect(await d.lines(buf)).toEqual(['one', 'TWO', 'three', 'FOUR, said the user', ...TEXT.slice(4)]);
    expect(readAudit(auditFile, 1)[0]).toMatchObject({ decision: 'review:accepted_with_changes' });
  });

  it('names the client in its header as the relay named it, escaped', async () => {
    const named = dispatcherCall(reviewing, { client: 'tErIheOV8SX8__6h', client_name: 'MCP CLI\u001b[2J Proxy' });
    const review = await reviewShown(d);
    const headers = await d.expr<string[]>(`filter(map(range(1, bufnr('$')), 'get(getbufline(v:val, 1), 0, "")'), 'v:val =~# "^vimrelay review:"')`);
    expect(headers).toEqual(['vimrelay review: MCP CLI^[[2J Proxy proposes find_and_replace in ' + (await d.expr<string>("fnamemodify('notes.txt', ':p')"))]);
    expect(review.id).toBeTruthy();
    await enter(':VimRelayReject not now');
    expect(await named).toMatchObject({ ok: false, error: { code: 'REVIEW_REJECTED' } });
    expect(readAudit(auditFile, 1)[0]).toMatchObject({ client: 'tErIheOV8SX8__6h', client_name: 'MCP CLI\u001b[2J Proxy', decision: 'review:rejected' });
  });

  it('changes nothing when the user rejects, and tells the model their reason; closing the tab is a reject too', async () => {
    const before = await d.tick(buf);
    const rejected = replace(reviewing, 'two', 'TWO');
    const review = await reviewShown(d);
    await enter(':VimRelayReject keep the lowercase, it is a quote');
    expect(await rejected).toMatchObject({
      ok: false,
      error: { code: 'REVIEW_REJECTED', review: { id: review.id, decision: 'rejected', reason: 'keep the lowercase, it is a quote' }, hint: 'Follow the reason the user gave.' },
    });
    await waitFor(async () => ((await reviewStates(d)).length === 0 ? true : undefined), 10_000, 'the review to close');
    const closed = replace(reviewing, 'three', 'THREE');
    await reviewShown(d);
    await enter(':tabclose');
    expect(await closed).toMatchObject({ ok: false, error: { code: 'REVIEW_REJECTED', review: { decision: 'rejected', reason: 'closed' } } });
    expect(await d.lines(buf)).toEqual(TEXT);
    expect(await d.tick(buf)).toBe(before);
  });

  it('keeps what the user typed in the buffer during the review: merged when elsewhere, a conflict when on the same lines', async () => {
    const merged = replace(reviewing, 'two', 'TWO');
    await reviewShown(d);
    await d.expr(`setbufline(${buf}, 7, 'seven, typed meanwhile')`);
    await d.type('ZA');
    expect(await merged).toMatchObject({ ok: true, data: { review: { decision: 'accepted' }, changedtick: await d.tick(buf) } });
    expect(await d.lines(buf)).toEqual(['one', 'TWO', 'three', 'four', 'five', 'six', 'seven, typed meanwhile', 'eight']);
    await waitFor(async () => ((await reviewStates(d)).length === 0 ? true : undefined), 10_000, 'the review to close');

    const conflicting = replace(reviewing, 'four', 'FOUR');
    await reviewShown(d);
    await d.expr(`setbufline(${buf}, 4, 'four, typed meanwhile')`);
    const tick = await d.tick(buf);
    await d.type('ZA');
    expect(await conflicting).toMatchObject({ ok: false, error: { code: 'REVIEW_CONFLICT', line: 4, review: { decision: 'conflict' } } });
    expect((await d.lines(buf))[3]).toBe('four, typed meanwhile');
    expect(await d.tick(buf)).toBe(tick);
  });

  it('answers "pending" when the user takes longer than timeout_ms, and review_status gives the outcome, audited as the editor\'s', async () => {
    const before = await d.tick(buf);
    const pending = await replace(reviewing, 'two', 'TWO', { timeout_ms: 300 });
    expect(pending).toMatchObject({ ok: true, data: { buf, changedtick: before, review: { decision: 'pending' } } });
    const id = pending?.ok ? String((pending.data.review as { id: string }).id) : '';
    expect(readAudit(auditFile, 1)[0]).toMatchObject({ decision: 'review:pending', outcome: 'ok' });
    expect(await call(reviewing, 'review_status', { id })).toMatchObject({ ok: true, data: { tool: 'find_and_replace', review: { id, decision: 'pending' } } });
    await reviewShown(d, id);
    const status = call(reviewing, 'review_status', { id, wait_ms: 20_000 });
    await d.type('ZA');
    expect(await status).toMatchObject({ ok: true, data: { tool: 'find_and_replace', changedtick: await d.tick(buf), review: { id, decision: 'accepted' } } });
    expect(await d.lines(buf)).toEqual(['one', 'TWO', ...TEXT.slice(2)]);
    // The decision's own line, then review_status's.
    expect(readAudit(auditFile, 2)).toMatchObject([{ tool: 'find_and_replace', decision: 'review:accepted', decided_by: 'editor' }, { tool: 'review_status' }]);
    // Asked again, the same outcome; an id nobody knows is REVIEW_NOT_FOUND.
    expect(await call(reviewing, 'review_status', { id })).toMatchObject({ ok: true, data: { review: { decision: 'accepted' } } });
    expect(await call(reviewing, 'review_status', { id: 'no-such-review' })).toMatchObject({ ok: false, error: { code: 'REVIEW_NOT_FOUND' } });
  });

  it('expires when nobody decides in time: nothing changes, and the editor says so', async () => {
    const fixture = testGuard({ rules: rules('review'), never_read: [] });
    const brief = new Dispatcher({ get: (id) => (id === d.editor.id ? d.editor : undefined) }, fixture.guard, { reviewExpiryMs: 1_500 });
    const pending = await replace(brief, 'two', 'TWO', { timeout_ms: 200 });
    const id = pending?.ok ? String((pending.data.review as { id: string }).id) : '';
    expect(await call(brief, 'review_status', { id, wait_ms: 10_000 })).toMatchObject({ ok: false, error: { code: 'REVIEW_EXPIRED', review: { id, decision: 'expired' } } });
    expect(await reviewStates(d)).toEqual([expect.objectContaining({ id, expired: true })]);
    // Its keys do nothing now; closing its tab takes it away.
    await d.type('ZA');
    expect(await d.lines(buf)).toEqual(TEXT);
    await enter(':tabclose');
  });

  it('reviews what the model asks to (review: true) under an allowing policy, and never skips a review the policy asks for', async () => {
    const allowing = new Dispatcher({ get: (id) => (id === d.editor.id ? d.editor : undefined) }, testGuard({ rules: rules('allow'), never_read: [] }).guard);
    const asked = replace(allowing, 'two', 'TWO', { review: true });
    await reviewShown(d);
    await enter(':VimRelayReject');
    expect(await asked).toMatchObject({ ok: false, error: { code: 'REVIEW_REJECTED' } });
    await waitFor(async () => ((await reviewStates(d)).length === 0 ? true : undefined), 10_000, 'the review to close');
    const skipping = replace(reviewing, 'two', 'TWO', { review: false });
    await reviewShown(d);
    expect(await d.lines(buf)).toEqual(TEXT);
    await d.type('ZA');
    expect(await skipping).toMatchObject({ ok: true, data: { review: { decision: 'accepted' } } });
    // Not reviewed: allowed and not asked for.
    expect(await replace(allowing, 'three', 'THREE')).toMatchObject({ ok: true, data: expect.not.objectContaining({ review: expect.anything() }) });
  });

  it('refuses every tool edit of a proposal under review, even where the policy allows writes without one', async () => {
    // Reviews for notes.txt only: the proposal's buffer (vimrelay://review/<id>) matches no rule.
    const pathRule = testGuard({ rules: [...rules('allow'), { klass: 'write', decision: 'review', path: '**/notes.txt' }], never_read: [] }).guard;
    const partly = new Dispatcher({ get: (id) => (id === d.editor.id ? d.editor : undefined) }, pathRule);
    const pending = await replace(partly, 'two', 'TWO', { timeout_ms: 200 });
    const id = pending?.ok ? String((pending.data.review as { id: string }).id) : '';
    await reviewShown(d, id);
    const proposal = await proposalBuffer(d, id);
    const guard = { buffer: proposal, expected_changedtick: await d.tick(proposal) };
    for (const [tool, args] of [
      ['find_and_replace', { ...guard, old_text: 'eight', new_text: 'eight, and a line nobody reviewed' }],
      ['write_buffer', { ...guard, text: 'nobody reviewed this\n' }],
      ['apply_diff', { ...guard, diff: '--- a\n+++ b\n@@ -8 +8 @@\n-eight\n+EIGHT\n' }],
      ['substitute', { buffer: proposal, pattern: 'eight', replacement: 'EIGHT' }],
      ['undo', { buffer: proposal }],
    ] as const) {
      expect(await call(partly, tool, args), tool).toMatchObject({ ok: false, error: { code: 'EDITOR_ERROR', message: expect.stringContaining(`proposal of review ${id}`) } });
    }
    expect(await d.lines(proposal)).toEqual(['one', 'TWO', ...TEXT.slice(2)]);
    const status = call(partly, 'review_status', { id, wait_ms: 20_000 });
    await d.type('ZA');
    expect(await status).toMatchObject({ ok: true, data: { review: { id, decision: 'accepted' } } });
    expect(await d.lines(buf)).toEqual(['one', 'TWO', ...TEXT.slice(2)]);
  });

  it('reviews write_buffer of a file that does not exist yet, against an empty buffer', async () => {
    const outcome = call(reviewing, 'write_buffer', { buffer: 'fresh.txt', text: 'a new file\nof two lines\n' });
    const review = await reviewShown(d);
    expect(await d.lines(await proposalBuffer(d, review.id))).toEqual(['a new file', 'of two lines']);
    await d.type('ZA');
    const fresh = await d.bufnr('fresh.txt');
    expect(await outcome).toMatchObject({ ok: true, data: { buf: fresh, created: true, total_lines: 2, review: { decision: 'accepted' } } });
    expect(await d.lines(fresh)).toEqual(['a new file', 'of two lines']);
  });

  it('keeps two reviews open side by side, each decided on its own', async () => {
    const first = replace(reviewing, 'two', 'TWO');
    const a = await reviewShown(d);
    const second = call(reviewing, 'substitute', { buffer: 'notes.txt', pattern: 'five', replacement: 'FIVE' });
    const b = await waitFor(async () => (await reviewStates(d)).find((r) => r.id !== a.id && r.shown), 15_000, 'the second review');
    expect(await tabs()).toBe(3);
    // get_state lists both, oldest first.
    expect((await d.ok('get_state')).reviews).toEqual([
      { id: a.id, buf, path: expect.stringMatching(/notes\.txt$/), shown: true },
      { id: b.id, buf, path: expect.stringMatching(/notes\.txt$/), shown: true },
    ]);
    // The second is at the front: reject it, then accept the first in its tab.
    await enter(':VimRelayReject not this one');
    expect(await second).toMatchObject({ ok: false, error: { code: 'REVIEW_REJECTED', review: { id: b.id } } });
    await waitFor(async () => ((await tabs()) === 2 ? true : undefined), 10_000, 'the second review\'s tab to close');
    await enter(`:${await d.expr<number>(`index(map(range(1, tabpagenr('$')), 'gettabvar(v:val, "vimrelay_review", "")'), ${JSON.stringify(a.id)}) + 1`)}tabnext`);
    await enter(':VimRelayAccept');
    expect(await first).toMatchObject({ ok: true, data: { review: { id: a.id, decision: 'accepted' } } });
    expect(await d.lines(buf)).toEqual(['one', 'TWO', 'three', 'four', 'five', 'six', 'seven', 'eight']);
  });
});
