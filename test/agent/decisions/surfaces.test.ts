// A prompt and a review decided on another surface than the editor (README "Deciding from
// elsewhere"), on a real Neovim and a real Vim in Normal mode, through the dispatcher as a client's
// call reaches them; the other surface is the relay's page as the agent's decision book sees it
// (the relay link hands the page's answers to `DecisionBook.answer`; the relay and the page
// themselves are in test/workers/pending.test.ts and test/e2e/pending-page.test.ts). The first
// answer wins: allowed or denied from the page, the call runs or is refused, the editor's prompt
// closes and the audit log says the dashboard decided; answered in the editor first, the page is
// told so; answered on both at once, exactly one wins and the other hears of it. A review
// accepted from the page is applied as proposed and its tab closes; rejected, nothing changes;
// pending, its result names the page. ask_via: only the page shows what it lets the page
// answer, the editor shows nothing it keeps off the editor, and a policy whose surfaces reach
// nobody refuses rather than waits.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, PERMISSION_CLASSES, type ToolOutcome, type WireDecision } from '../../../protocol/index.ts';
import { readAudit } from '../../../agent/audit/log.ts';
import { Dispatcher } from '../../../agent/calls/dispatcher.ts';
import type { DecisionBook } from '../../../agent/decisions/book.ts';
import type { Editor } from '../../../agent/editors/editor.ts';
import { writePolicy, type Policy } from '../../../agent/policy/file.ts';
import { NORMAL_DRIVERS, waitFor, type Driver } from '../../helpers/editors.ts';
import { testGuard } from '../../helpers/policy.ts';
import { answerKeys, promptArmed, promptStates, shown } from '../../helpers/prompt-view.ts';
import { proposalBuffer, reviewShown, reviewStates } from '../../helpers/review-view.ts';

const PAGE = 'https://relay.test/dashboard/pending';
const TEXT = ['one', 'two', 'three'];

/** exec asks; every other class is allowed (a review is the model's `review: true`). */
function policy(askVia?: Policy['askVia']): Policy {
  return {
    rules: PERMISSION_CLASSES.map((klass) => ({ klass, decision: klass === 'exec' ? ('ask' as const) : ('allow' as const) })),
    never_read: [],
    ...(askVia === undefined ? {} : { askVia }),
  };
}

describe.each(NORMAL_DRIVERS)('decided from elsewhere on %s', (_kind, start) => {
  let d: Driver;
  let buf: number;
  let book: DecisionBook;
  let dispatcher: Dispatcher;
  let policyFile: string;
  let auditFile: string;
  /** How many prompts the agent asked the editor to show. */
  let prompts = 0;
  let seq = 0;
  const call = (tool: string, args: Record<string, unknown>): Promise<ToolOutcome | undefined> =>
    dispatcher.handle({ id: `elsewhere-${++seq}`, tool, editor: d.editor.id, args, scopes: [...ALL_SCOPES], client: 'claude-test', deadline_ms: 30_000 });
  const run = (command: string): Promise<ToolOutcome | undefined> => call('run_command', { commands: command });
  const ran = (name: string): Promise<number> => d.expr<number>(`exists("g:${name}")`);
  /** The one decision the page may answer now. */
  const onPage = (): Promise<WireDecision> =>
    waitFor(() => {
      const [first, ...more] = book.list('dashboard');
      if (more.length > 0) throw new Error('more than one decision is pending');
      return first;
    }, 10_000, 'a decision on the page');
  const tabs = (): Promise<number> => d.expr<number>("tabpagenr('$')");

  beforeAll(async () => {
    d = await start({ files: { 'notes.txt': `${TEXT.join('\n')}\n` }, open: ['notes.txt'] });
    buf = await d.bufnr('notes.txt');
    const fixture = testGuard(policy());
    policyFile = fixture.policyFile;
    auditFile = fixture.auditFile;
    book = fixture.guard.decisions;
    book.offer('dashboard', PAGE);
    // The editor as the dispatcher sees it, counting the prompts it is asked to show.
    const editor = new Proxy(d.editor, {
      get(target, key) {
        if (key === 'ask') return (...args: Parameters<Editor['ask']>) => (prompts++, target.ask(...args));
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    dispatcher = new Dispatcher({ get: (id) => (id === d.editor.id ? editor : undefined) }, fixture.guard);
  });
  afterAll(() => d?.stop());
  afterEach(async () => {
    writePolicy(policyFile, policy());
    await waitFor(async () => ((await promptStates(d)).length === 0 && (await reviewStates(d)).length === 0 ? true : undefined), 10_000, 'no prompt or review left');
    await d.command(`call setbufline(${buf}, 1, ${JSON.stringify(TEXT)})`);
    expect(book.count()).toBe(0);
  });

  it('allowed on the page: the call runs, the prompt closes, and the audit log says the dashboard decided', async () => {
    const outcome = run('let g:from_page = 1');
    const decision = await onPage();
    expect(decision).toMatchObject({ kind: 'prompt', editor: d.editor.id, client: 'claude-test', tool: 'run_command', klass: 'exec', offers: ['allow', 'deny'], sections: [{ title: null, lines: [':let g:from_page = 1'] }] });
    await waitFor(async () => (await shown(d))?.some((l) => l.includes(':let g:from_page = 1')), 10_000, 'the prompt in the editor');
    expect(await book.answer(decision.id, { kind: 'allow' }, 'dashboard')).toEqual({ ok: true, said: 'allowed' });
    expect(await outcome).toMatchObject({ ok: true });
    expect(await ran('from_page')).toBe(1);
    await waitFor(async () => ((await shown(d)) === null ? true : undefined), 10_000, 'the prompt to close');
    expect(readAudit(auditFile, 1)[0]).toMatchObject({ tool: 'run_command', decision: 'ask:allow_once', decided_by: 'dashboard', outcome: 'ok' });
  });

  it('denied on the page with a reason: nothing runs, and the model hears the reason and where it was given', async () => {
    const outcome = run('let g:denied_on_page = 1');
    const decision = await onPage();
    expect(await book.answer(decision.id, { kind: 'deny', reason: 'not on a Friday' }, 'dashboard')).toEqual({ ok: true, said: 'denied' });
    expect(await outcome).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', reason: 'not on a Friday', message: 'The user denied run_command on the dashboard: not on a Friday' } });
    expect(await ran('denied_on_page')).toBe(0);
    expect(readAudit(auditFile, 1)[0]).toMatchObject({ decision: 'ask:deny', decided_by: 'dashboard' });
  });

  it('answered in the editor first: the page hears it was decided in the editor, and changes nothing', async () => {
    const outcome = run('let g:in_editor = 1');
    const decision = await onPage();
    await promptArmed(d);
    await d.type(answerKeys(d, 'allow_once'));
    expect(await outcome).toMatchObject({ ok: true });
    expect(await book.answer(decision.id, { kind: 'deny' }, 'dashboard')).toEqual({ ok: false, code: 'ALREADY_DECIDED', by: 'editor' });
    expect(await ran('in_editor')).toBe(1);
    expect(readAudit(auditFile, 1)[0]).toMatchObject({ decision: 'ask:allow_once', decided_by: 'editor' });
  });

  it('answered on both at once: exactly one answer wins, and the other is told', async () => {
    const outcome = run('let g:raced = 1');
    const decision = await onPage();
    await promptArmed(d);
    // The editor allows, the page denies: what ran says who won.
    const [, page] = await Promise.all([d.type(answerKeys(d, 'allow_once')), book.answer(decision.id, { kind: 'deny', reason: 'raced' }, 'dashboard')]);
    const result = await outcome;
    const line = readAudit(auditFile, 1)[0];
    if (page.ok) {
      expect(page).toEqual({ ok: true, said: 'denied' });
      expect(result).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', reason: 'raced' } });
      expect(await ran('raced')).toBe(0);
      expect(line).toMatchObject({ decision: 'ask:deny', decided_by: 'dashboard' });
    } else {
      expect(page).toEqual({ ok: false, code: 'ALREADY_DECIDED', by: 'editor' });
      expect(result).toMatchObject({ ok: true });
      expect(await ran('raced')).toBe(1);
      expect(line).toMatchObject({ decision: 'ask:allow_once', decided_by: 'editor' });
    }
    await waitFor(async () => ((await shown(d)) === null ? true : undefined), 10_000, 'the prompt to close');
  });

  it('a review accepted on the page is applied as proposed, its tab closes, and the model hears "accepted"', async () => {
    const outcome = call('find_and_replace', { buffer: 'notes.txt', old_text: 'two', new_text: 'TWO', expected_changedtick: await d.tick(buf), review: true });
    const review = await reviewShown(d);
    expect(await tabs()).toBe(2);
    const decision = await onPage();
    expect(decision).toMatchObject({ kind: 'review', tool: 'find_and_replace', klass: 'write', offers: ['accept', 'reject'] });
    expect(decision.sections).toHaveLength(1);
    expect(decision.sections[0]?.lines).toEqual(expect.arrayContaining(['-two', '+TWO']));
    expect(await book.answer(decision.id, { kind: 'accept' }, 'dashboard')).toEqual({ ok: true, said: 'accepted' });
    expect(await outcome).toMatchObject({ ok: true, data: { review: { id: review.id, decision: 'accepted' } } });
    expect(await d.lines(buf)).toEqual(['one', 'TWO', 'three']);
    await waitFor(async () => ((await tabs()) === 1 ? true : undefined), 10_000, 'the review tab to close');
    expect(readAudit(auditFile, 1)[0]).toMatchObject({ tool: 'find_and_replace', decision: 'review:accepted', decided_by: 'dashboard' });
  });

  it('a review rejected on the page changes nothing, and the model hears the reason', async () => {
    const before = await d.tick(buf);
    const outcome = call('find_and_replace', { buffer: 'notes.txt', old_text: 'two', new_text: 'TWO', expected_changedtick: before, review: true });
    await reviewShown(d);
    const decision = await onPage();
    expect(await book.answer(decision.id, { kind: 'reject', reason: 'keep it lowercase' }, 'dashboard')).toEqual({ ok: true, said: 'rejected' });
    expect(await outcome).toMatchObject({ ok: false, error: { code: 'REVIEW_REJECTED', review: { decision: 'rejected', reason: 'keep it lowercase' } } });
    expect(await d.lines(buf)).toEqual(TEXT);
    expect(await d.tick(buf)).toBe(before);
    // Its tab is gone: the user's own ZA on it now would change nothing.
    await waitFor(async () => ((await tabs()) === 1 ? true : undefined), 10_000, 'the review tab to close');
  });

  it('a review still pending names the page, and one accepted there after its call answered gets its own audit line', async () => {
    const pending = await call('find_and_replace', { buffer: 'notes.txt', old_text: 'three', new_text: 'THREE', expected_changedtick: await d.tick(buf), review: true, timeout_ms: 200 });
    const decision = await onPage();
    expect(pending).toMatchObject({ ok: true, data: { review: { decision: 'pending', dashboard: `${PAGE}#d-${decision.id}` } } });
    const id = pending?.ok ? String((pending.data.review as { id: string }).id) : '';
    const review = await reviewShown(d, id);
    // The user had typed into the proposal: the page accepts the proposal as the model made it.
    await d.expr(`setbufline(${await proposalBuffer(d, review.id)}, 3, 'typed into the tab')`);
    expect(await book.answer(decision.id, { kind: 'accept' }, 'dashboard')).toEqual({ ok: true, said: 'accepted' });
    expect(await call('review_status', { id })).toMatchObject({ ok: true, data: { review: { id, decision: 'accepted' } } });
    expect(await d.lines(buf)).toEqual(['one', 'two', 'THREE']);
    expect(readAudit(auditFile, 2)).toMatchObject([{ tool: 'find_and_replace', decision: 'review:accepted', decided_by: 'dashboard' }, { tool: 'review_status' }]);
  });

  it('ask_via: the page alone shows what the policy keeps off the editor, and the editor alone what it keeps off the page', async () => {
    writePolicy(policyFile, policy(['dashboard']));
    const before = prompts;
    const outcome = run('let g:page_only = 1');
    const decision = await onPage();
    expect(await book.answer(decision.id, { kind: 'allow' }, 'dashboard')).toEqual({ ok: true, said: 'allowed' });
    expect(await outcome).toMatchObject({ ok: true });
    expect(await ran('page_only')).toBe(1);
    // A review too: no tab opens, and the page's accept applies it.
    const reviewed = call('find_and_replace', { buffer: 'notes.txt', old_text: 'one', new_text: 'ONE', expected_changedtick: await d.tick(buf), review: true });
    const review = await onPage();
    expect(await reviewStates(d)).toEqual([]);
    expect(await book.answer(review.id, { kind: 'accept' }, 'dashboard')).toEqual({ ok: true, said: 'accepted' });
    expect(await reviewed).toMatchObject({ ok: true, data: { review: { decision: 'accepted' } } });
    expect(prompts).toBe(before);

    writePolicy(policyFile, policy(['editor']));
    const editorOnly = run('let g:editor_only = 1');
    const held = await waitFor(() => book.list('editor')[0], 10_000, 'the decision');
    expect(book.list('dashboard')).toEqual([]);
    expect(await book.answer(held.id, { kind: 'allow' }, 'dashboard')).toEqual({ ok: false, code: 'NOT_OFFERED' });
    await promptArmed(d);
    await d.type(answerKeys(d, 'deny'));
    expect(await editorOnly).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(await ran('editor_only')).toBe(0);
  });

  it('ask_via naming only surfaces that reach nobody now refuses at once, asking nobody', async () => {
    writePolicy(policyFile, policy(['assistant']));
    const before = prompts;
    expect(await run('let g:nobody = 1')).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', message: expect.stringContaining('none of the places it asks on (ask_via: assistant) can reach the user now') } });
    expect(prompts).toBe(before);
    expect(await ran('nobody')).toBe(0);
  });
});
