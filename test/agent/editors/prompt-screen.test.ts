// Every approval is the user's own act and shows the whole of what it approves, on the real screen:
// Neovim and Vim each run in a terminal (tmux, 120x40), with an exec prompt asked through the
// dispatcher as a client would, and the test is a person at the keyboard, keys sent one at a time
// (tmux send-keys) and the screen read back (capture-pane).
// - A person typing a note, in Insert, Normal or Visual mode, while a prompt opens: every key goes
//   where it would have gone without the prompt (the prompt's old allow keys o and a among them,
//   and the attack's own Normal-mode keys k j w b o), nothing is answered and nothing runs; once
//   they stop, the prompt takes keys, and even then answers none for a moment.
// - A command padded with thousands of spaces shows its middle at once: the blanks are one mark.
// - A long command: the payload at its end is not on the screen at first, Ctrl-G does nothing
//   until every row has been shown with the prompt's own keys, and then runs it.
// - A preview too long to show whole is not shown: the screen offers only deny, and no allow key works.
// - A prompt answered on the relay's page (README "Deciding from elsewhere") closes, and the screen
//   says where it was answered.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, PERMISSION_CLASSES, type ToolOutcome } from '../../../protocol/index.ts';
import { Dispatcher } from '../../../agent/calls/dispatcher.ts';
import type { DecisionBook } from '../../../agent/decisions/book.ts';
import { ON_SCREEN, type OnScreen } from '../../helpers/on-screen.ts';
import { testGuard } from '../../helpers/policy.ts';
import { promptArmed, promptStates } from '../../helpers/prompt-view.ts';
import { insideBorders, squeezed } from '../../helpers/tmux.ts';
import { waitFor } from '../../helpers/wait.ts';

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** g:vimrelay_prompt_delay_ms for the cases that check keys sent within the prompt's waits (ms). */
const SLOW_MS = 4_000;

describe.each(ON_SCREEN)('the exec prompt on the screen of %s', (_kind, start) => {
  let on: OnScreen;
  /** A file the payload writes, in a directory of the test's. */
  let marker: string;
  let dispatcher: Dispatcher;
  let book: DecisionBook;
  let seq = 0;
  const run = (commands: string | string[]): Promise<ToolOutcome | undefined> =>
    dispatcher.handle({ id: `screen-${++seq}`, tool: 'run_command', editor: on.editor.id, args: { commands }, scopes: [...ALL_SCOPES], client: 'claude-test', deadline_ms: 30_000 });
  const showing = (text: string): Promise<string[]> =>
    waitFor(() => {
      const rows = on.term.screen();
      return squeezed(rows).includes(text.replace(/\s/g, '')) ? rows : undefined;
    }, 10_000, () => `the screen to show ${text}; it shows:\n${on.term.screen().join('\n')}`);
  const notShowing = (text: string): Promise<true> =>
    waitFor(() => (squeezed(on.term.screen()).includes(text.replace(/\s/g, '')) ? undefined : true), 10_000, `the screen to stop showing ${text}`);
  /** The text of the file's first line, read through the editor (the prompt may cover it on screen). */
  const firstLine = (): Promise<string> => on.expr<string>('getbufline("a.txt", 1)[0]');
  /** Whether `outcome` has settled after a round trip to the editor (every key sent before is taken). */
  const settled = async (outcome: Promise<unknown>): Promise<boolean> => {
    let done = false;
    void outcome.then(() => (done = true));
    await on.expr('1');
    return done;
  };
  /** A person typing `text` at an ordinary speed, one key at a time. */
  const typeSlowly = async (text: string): Promise<void> => {
    for (const ch of text) {
      on.term.type(ch);
      await pause(110);
    }
  };

  beforeAll(async () => {
    on = await start({ files: { 'a.txt': 'the user\'s file\n' }, open: ['a.txt'] });
    marker = join(on.home, 'payload-ran');
    const rules = PERMISSION_CLASSES.map((klass) => ({ klass, decision: klass === 'exec' ? ('ask' as const) : ('allow' as const) }));
    const { guard } = testGuard({ rules, never_read: [] });
    // The relay's page reaches the user too, as while `vimrelay agent` is linked to a relay.
    book = guard.decisions;
    book.offer('dashboard', 'https://relay.test/dashboard/pending');
    dispatcher = new Dispatcher({ get: (id) => (id === on.editor.id ? on.editor : undefined) }, guard);
    await showing('the user\'s file');
  });
  afterAll(() => on?.stop());
  afterEach(async () => {
    // Back to Normal mode on the first line, the file as it was.
    on.term.key('Escape');
    await waitFor(async () => ((await on.expr('mode()')) === 'n' ? true : undefined), 10_000, 'Normal mode');
    on.term.type(':silent! %d | call setline(1, "the user\'s file") | 1');
    on.term.key('Enter');
    await waitFor(async () => ((await firstLine()) === 'the user\'s file' ? true : undefined), 10_000, 'the file as it was');
  });

  it.each([
    ['Insert', 'i', 'typing a note, do as you like'],
    ['Normal', '', 'kjwbo and then a note'],
    ['Visual', 'v', 'jwbo$'],
  ] as const)('takes none of the keys typed through an opening prompt in %s mode, and none for a moment after it takes keys', async (mode, enter, typed) => {
    const modeMarker = `${marker}-${mode}`;
    const payload = `call writefile(['ran'], '${modeMarker}')`;
    // A user who reads slowly makes the prompt wait longer: here, so that however late this
    // machine delivers the keys, they still come within the waits they check.
    await on.expr(`execute('let g:vimrelay_prompt_delay_ms = ${SLOW_MS}')`);
    if (enter) on.term.type(enter);
    // The prompt opens while the person types.
    await typeSlowly(typed.slice(0, 3));
    const outcome = run(payload);
    await typeSlowly(typed.slice(3));
    await showing('asks to run run_command (exec)');
    if (enter === 'i') await waitFor(async () => ((await firstLine()) === `${typed}the user's file` ? true : undefined), 10_000, 'every key typed in the file');
    expect(await settled(outcome)).toBe(false);
    expect(existsSync(modeMarker)).toBe(false);
    // They stop: the prompt takes the keys; the keys answer nothing for a moment.
    await waitFor(async () => ((await promptStates(on))[0]?.taking_keys ? true : undefined), 20_000, 'the prompt to take keys');
    on.term.key('C-g');
    await showing('its keys answer in a moment');
    expect(await settled(outcome)).toBe(false);
    // Then the person who read it answers.
    await promptArmed(on);
    on.term.key('C-g');
    expect(await outcome).toMatchObject({ ok: true });
    expect(existsSync(modeMarker)).toBe(true);
    await notShowing('asks to run run_command (exec)');
    // The mode they were in is theirs again (Insert mode, in Neovim, which left it for the prompt).
    if (enter === 'i') expect(await on.expr('mode()')).toBe('i');
    await on.expr("execute('unlet g:vimrelay_prompt_delay_ms')");
  });

  it('shows a command padded with thousands of spaces whole at once: the blanks are one mark', async () => {
    const hidden = `call writefile(['hidden'], '${marker}-hidden')`;
    const command = `echo "formatting done"${' '.repeat(4_000)}| ${hidden}${' '.repeat(4_000)}| " end of command`;
    const outcome = run(command);
    // The whole command inside the prompt's borders, on one screen: waited for, as a capture taken
    // while the editor draws may hold the header but not yet the rest.
    const whole = `"formattingdone"⟨4,000spaces⟩|${hidden.replace(/\s/g, '')}⟨4,000spaces⟩|"endofcommand`;
    await waitFor(() => (insideBorders(on.term.screen()).includes(whole) ? true : undefined), 10_000, () => `the prompt to show ${whole}; the screen shows:\n${on.term.screen().join('\n')}`);
    await promptArmed(on);
    on.term.type('d');
    expect(await outcome).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(existsSync(`${marker}-hidden`)).toBe(false);
  });

  it('shows the payload at the end of a long command before Ctrl-G runs it, scrolling with the prompt\'s own keys', async () => {
    const payload = `call writefile(['ran'], '${marker}-long')`;
    const command = `echo '${'all is well here, nothing to see. '.repeat(200)}' | ${payload}`;
    const outcome = run(command);
    const first = await showing('asks to run run_command (exec)');
    const wanted = payload.replace(/\s/g, '');
    expect(insideBorders(first)).not.toContain(wanted);
    // Ctrl-G before every row was shown: refused, and it says why.
    await promptArmed(on);
    on.term.key('C-g');
    await showing('scroll through all of it first');
    expect(await settled(outcome)).toBe(false);
    // The prompt's own keys scroll until every row, the payload's among them, has been on the screen.
    let rows = on.term.screen();
    for (let page = 0; page < 20 && ((await promptStates(on))[0]?.unseen ?? 0) > 0; page++) {
      const before = rows.join('\n');
      on.term.key('C-d');
      rows = await waitFor(() => {
        const now = on.term.screen();
        return now.join('\n') !== before ? now : undefined;
      }, 10_000, () => `the prompt to scroll; the screen shows:\n${before}`);
    }
    expect(insideBorders(rows), rows.join('\n')).toContain(wanted);
    expect(existsSync(`${marker}-long`)).toBe(false);
    await promptArmed(on);
    on.term.key('C-g');
    expect(await outcome).toMatchObject({ ok: true });
    expect(existsSync(`${marker}-long`)).toBe(true);
  });

  it('offers only deny for a preview too long to show whole, and no allow key works', async () => {
    const commands = Array.from({ length: 50 }, (_, i) => `let g:long${i} = '${'x'.repeat(2_500)}'`);
    const outcome = run(commands);
    const rows = await showing('it can only be denied');
    expect(rows.join('\n')).not.toMatch(/allow once|allow always/);
    expect(rows.join('\n')).toContain('[d] deny');
    await promptArmed(on);
    on.term.key('C-g');
    on.term.key('C-t');
    expect(await settled(outcome)).toBe(false);
    on.term.type('d');
    expect(await outcome).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', message: expect.stringContaining('The user denied') } });
  });

  it('closes a prompt answered on the relay\'s page, and says so where the user looks', async () => {
    const payload = `call writefile(['ran'], '${marker}-page')`;
    const outcome = run(payload);
    await showing('asks to run run_command (exec)');
    const decision = await waitFor(() => book.list('dashboard')[0], 10_000, 'the decision on the page');
    expect(await book.answer(decision.id, { kind: 'allow' }, 'dashboard')).toEqual({ ok: true, said: 'allowed' });
    expect(await outcome).toMatchObject({ ok: true });
    expect(existsSync(`${marker}-page`)).toBe(true);
    await notShowing('asks to run run_command (exec)');
    await showing('vimrelay: allowed on the dashboard');
  });
});
