// What a user sees of a review (README "Reviews"), on the real screen: Neovim and Vim each run in a
// terminal (tmux) of 120x40 and of 80x24, attached to the agent's adapter, with edits under a
// policy that says `review` sent through the dispatcher as a client's call reaches them. The test
// is a person at the keyboard, keys sent one at a time (tmux send-keys), the screen read back
// (capture-pane) and kept in test-artifacts/review-screens/:
// - a review that comes while they type in Insert mode waits: a notice on the screen says so, and
//   every key goes to their buffer; once they are back in Normal mode and stop, the review's tab
//   comes to the front: the header whole, their buffer on the left and the proposal on the right,
//   in diff mode;
// - they change a line of the proposal by typing and accept it with ZA: it is applied as they left
//   it (the model gets the diff of their change), and one `u` in their buffer undoes all of it;
// - ZR asks for a reason, which the model gets; :VimRelayReject takes one too; closing the tab is
//   a reject with the reason "closed"; nothing changes;
// - after each, their own tab is as it was: the same windows in the same layout, each with its
//   buffer and cursor, the same current window, Normal mode.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, PERMISSION_CLASSES, type ToolOutcome } from '../../../protocol/index.ts';
import { Dispatcher } from '../../../agent/calls/dispatcher.ts';
import { ON_SCREEN, type OnScreen } from '../../helpers/on-screen.ts';
import { testGuard } from '../../helpers/policy.ts';
import { reviewShown, reviewStates } from '../../helpers/review-view.ts';
import { backgroundAt, squeezed } from '../../helpers/tmux.ts';
import { waitFor } from '../../helpers/wait.ts';

const TEXT = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'];
const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test-artifacts', 'review-screens');
const SIZES = [
  [120, 40],
  [80, 24],
] as const;

/** The user's own tab as the editor holds it: windows, layout, buffers and cursors, the current window, the mode. */
interface UserTab {
  tabs: number;
  layout: unknown;
  win: number;
  mode: string;
  windows: [number, number, number][];
}

const USER_TAB =
  "{'tabs': tabpagenr('$'), 'layout': winlayout(), 'win': win_getid(), 'mode': mode(1), " +
  "'windows': map(copy(gettabinfo(tabpagenr())[0].windows), '[winbufnr(v:val)] + getcurpos(v:val)[1:2]')}";

describe.each(ON_SCREEN.flatMap(([name, start]) => SIZES.map(([cols, rows]) => [name, cols, rows, start] as const)))('a review on the screen of %s, %dx%d', (name, cols, rows, start) => {
  let on: OnScreen;
  let dispatcher: Dispatcher;
  let seq = 0;
  const header = (): string => `vimrelay review: claude-test proposes find_and_replace in ${on.cwd}/notes.txt`;
  const notes = (): Promise<string[]> => on.expr<string[]>("getbufline(bufnr('notes.txt'), 1, '$')");
  const userTab = (): Promise<UserTab> => on.expr<UserTab>(USER_TAB);
  /** find_and_replace in notes.txt, guarded by its current changedtick, as a client sends it. */
  const edit = async (oldText: string, newText: string): Promise<ToolOutcome | undefined> => {
    const tick = await on.expr<number>("getbufvar(bufnr('notes.txt'), 'changedtick')");
    const args = { buffer: 'notes.txt', old_text: oldText, new_text: newText, expected_changedtick: tick };
    return dispatcher.handle({ id: `screen-review-${++seq}`, tool: 'find_and_replace', editor: on.editor.id, args, scopes: [...ALL_SCOPES], client: 'claude-test', deadline_ms: 60_000 });
  };
  /** Keys typed one at a time, as a person types them. */
  const typeKeys = (text: string): void => {
    for (const ch of text) on.term.type(ch);
  };
  const enter = (command: string): void => {
    typeKeys(command);
    on.term.key('Enter');
  };
  const showing = (text: string): Promise<string[]> =>
    on.term.until((r) => squeezed(r).includes(text.replace(/\s/g, '')), `the screen to show "${text}"`, 20_000);
  /** Keeps the screen as the user sees it now, under `step`. */
  const keep = (step: string, screen: string[]): void => {
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, `${on.kind}-${cols}x${rows}-${step}.txt`), `${screen.join('\n')}\n`);
  };
  /** The screen row showing `left` in the left window and `right` in the right one, side by side. */
  const sideBySide = (screen: string[], left: string, right: string): number => screen.findIndex((r) => new RegExp(`^\\s*${left}\\s+[│|]\\s*${right}$`).test(r));
  /** Waits for the review's tab to have closed, the user's own tab current again. */
  const reviewGone = async (): Promise<void> => {
    await waitFor(async () => ((await reviewStates(on)).length === 0 ? true : undefined), 20_000, 'the review to close');
    await waitFor(async () => ((await on.expr<number>("tabpagenr('$')")) === 1 ? true : undefined), 20_000, 'the review\'s tab to close');
  };

  beforeAll(async () => {
    on = await start({ files: { 'notes.txt': `${TEXT.join('\n')}\n`, 'todo.txt': 'todo\n' }, open: ['notes.txt'], cols, rows });
    const policy = PERMISSION_CLASSES.map((klass) => ({ klass, decision: klass === 'write' ? ('review' as const) : ('allow' as const) }));
    dispatcher = new Dispatcher({ get: (id) => (id === on.editor.id ? on.editor : undefined) }, testGuard({ rules: policy, never_read: [] }).guard);
    await on.term.until((r) => r[0] === 'one', `${name} to show notes.txt`, 20_000);
    // The user's layout: todo.txt on the left, where they type; notes.txt on the right, its cursor on "six".
    enter(':vsplit todo.txt');
    on.term.key('C-w');
    typeKeys('l6Gl');
    on.term.key('C-w');
    typeKeys('h');
    await waitFor(async () => {
      const tab = await userTab();
      return tab.windows.length === 2 && tab.windows.some(([, line, col]) => line === 6 && col === 2) && (await on.expr<string>("bufname('%')")) === 'todo.txt' ? true : undefined;
    }, 20_000, 'the user\'s layout');
  }, 60_000);
  afterAll(() => on?.stop());
  afterEach(async () => {
    // What a failed test left is closed as the user would close it, so that the next one starts clean.
    if ((await reviewStates(on)).length > 0) {
      on.term.key('Escape');
      for (const command of [':tabfirst | tabonly!', ':VimRelayReview', ':tabfirst | tabonly!']) enter(command);
    }
    await reviewGone();
    if ((await notes()).join('\n') !== TEXT.join('\n')) await on.expr(`setbufline(bufnr('notes.txt'), 1, ${JSON.stringify(TEXT)})`);
  });

  it('waits while the user types in Insert mode, then shows the diff; the proposal as they changed it is applied as one undo step', async () => {
    const layout = await userTab();
    typeKeys('A typing');
    await showing('-- INSERT --');
    const outcome = edit('two', 'TWO');
    // It waits, saying so, while they type: every key goes to their buffer.
    const waiting = await showing('a review waits');
    keep('1-waiting', waiting);
    expect(squeezed(waiting)).toContain('--INSERT--');
    typeKeys(' on and on');
    await on.term.until((r) => r[0]?.startsWith('todo typing on and on') ?? false, 'the keys in todo.txt', 20_000);
    expect(await reviewStates(on)).toEqual([expect.objectContaining({ shown: false })]);
    expect(await on.expr<string>('mode()')).toBe('i');
    // Back in Normal mode, they stop: the review's tab comes to the front.
    on.term.key('Escape');
    await reviewShown(on);
    const opened = await showing(header());
    keep('2-opened', opened);
    // The header whole, each of its fixed lines on a row of its own.
    expect(squeezed(opened)).toContain(squeezed([header()]));
    for (const line of ['Left: your buffer. Right: the proposal, yours to change (do, :diffget, typing).', 'ZA or :VimRelayAccept applies the right side as it stands.', 'ZR or :VimRelayReject [reason] rejects; closing this tab rejects too.']) {
      expect(opened).toContain(line);
    }
    expect(sideBySide(opened, 'two', 'TWO'), opened.join('\n')).toBeGreaterThan(0);
    expect(sideBySide(opened, 'three', 'three')).toBeGreaterThan(0);
    // In diff mode: the changed line is highlighted, an unchanged one is not.
    const attributes = on.term.screenWithAttributes();
    const changed = attributes[sideBySide(opened, 'two', 'TWO')] ?? '';
    const same = attributes[sideBySide(opened, 'three', 'three')] ?? '';
    expect(backgroundAt(changed, 'TWO'), changed).not.toBe('default');
    expect(backgroundAt(changed, 'two'), changed).not.toBe('default');
    expect(backgroundAt(same, 'three'), same).toBe('default');
    // They change "four" in the proposal by typing, and accept it as it stands.
    typeKeys('3jccFOUR');
    on.term.key('Escape');
    const changedByHand = await on.term.until((r) => sideBySide(r, 'four', 'FOUR') > 0 && !squeezed(r).includes('--INSERT--'), 'the typed line in the proposal, in Normal mode', 20_000);
    keep('3-changed', changedByHand);
    typeKeys('ZA');
    const result = await outcome;
    expect(result).toMatchObject({ ok: true, data: { review: { decision: 'accepted_with_changes', user_changes: expect.stringContaining('-four\n+FOUR\n') } } });
    await reviewGone();
    expect(await notes()).toEqual(['one', 'TWO', 'three', 'FOUR', ...TEXT.slice(4)]);
    const accepted = await showing('vimrelay: applied');
    keep('4-accepted', accepted);
    // Their tab as it was: the keys they typed, each window's cursor where it was (the one they
    // typed in on its last character, as Esc leaves it), Normal mode.
    const typed = 'todo typing on and on';
    expect(await userTab()).toEqual({ ...layout, windows: layout.windows.map(([buf, line, col]) => (col === 1 && line === 1 ? [buf, 1, typed.length] : [buf, line, col])) });
    expect(accepted[0]?.startsWith(typed)).toBe(true);
    // One `u` in notes.txt undoes all of it.
    on.term.key('C-w');
    typeKeys('lu');
    await waitFor(async () => ((await notes()).join() === TEXT.join() ? true : undefined), 20_000, 'the undo');
    keep('5-undone', await on.term.until((r) => r.some((row) => /[│|]two$/.test(row)), 'the undo on screen', 20_000));
    on.term.key('C-w');
    typeKeys('h');
    await waitFor(async () => ((await userTab()).win === layout.win ? true : undefined), 20_000, 'the user back in todo.txt');
  });

  it('asks for a reason at ZR, and the model gets it; nothing changes and the user\'s tab is as it was', async () => {
    const before = await userTab();
    const cursor = on.term.cursor();
    const outcome = edit('two', 'TWO');
    await reviewShown(on);
    await showing(header());
    typeKeys('ZR');
    const asking = await showing('Reason for rejecting:');
    keep('6-reason', asking);
    typeKeys('keep it lowercase');
    on.term.key('Enter');
    expect(await outcome).toMatchObject({ ok: false, error: { code: 'REVIEW_REJECTED', review: { decision: 'rejected', reason: 'keep it lowercase' } } });
    await reviewGone();
    keep('7-rejected', await showing('vimrelay: rejected; nothing was changed'));
    expect(await userTab()).toEqual(before);
    expect(on.term.cursor()).toEqual(cursor);
  });

  it('takes a reason after :VimRelayReject; nothing changes and the user\'s tab is as it was', async () => {
    const before = await userTab();
    const outcome = edit('three', 'THREE');
    await reviewShown(on);
    await showing(header());
    enter(':VimRelayReject not in this file');
    expect(await outcome).toMatchObject({ ok: false, error: { code: 'REVIEW_REJECTED', review: { decision: 'rejected', reason: 'not in this file' } } });
    await reviewGone();
    await showing('vimrelay: rejected; nothing was changed');
    expect(await userTab()).toEqual(before);
  });

  it('rejects with the reason "closed" when the user closes the tab; their tab is as it was', async () => {
    const before = await userTab();
    const outcome = edit('three', 'THREE');
    await reviewShown(on);
    await showing(header());
    enter(':tabclose');
    expect(await outcome).toMatchObject({ ok: false, error: { code: 'REVIEW_REJECTED', review: { decision: 'rejected', reason: 'closed' } } });
    await reviewGone();
    keep('8-closed', on.term.screen());
    expect(await userTab()).toEqual(before);
  });
});
