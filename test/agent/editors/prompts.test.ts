// The permission prompt (Editor.ask), the same cases on a real Neovim (a floating window, answered
// with nvim_input: the real keymap path) and a real Vim in Normal mode (a popup, answered with keys
// typed into its stdin: the real filter path): the prompt shows the client, tool, class, editor,
// path and preview with the keys; every answer kind comes back (Ctrl-G, Ctrl-T, d, q, <Esc>, r
// with and without a reason; a prompt closed another way is a deny; o, a and A are no keys); keys
// typed while the user is still typing go where they always go, and the prompt takes keys only
// once they stop; keys answer only a moment after it took them, allow only a moment after it last
// scrolled; a prompt taller than the screen takes allow only once every row has been on screen,
// and a deny-only prompt takes no allow key; the deadline takes the prompt down and answers
// timeout, also while the reason is being typed; two asks on one editor are shown one after the
// other; a prompt holds up neither tool calls on its own editor nor calls and asks on another
// editor; the user's window, cursor and mode are as before, in Insert and Visual mode too (the
// selection comes back); an editor that goes away with a prompt open rejects it with EditorGone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskAnswer, AskRequest } from '../../../agent/policy/types.ts';
import { promptKeys } from '../../../agent/editors/prompts.ts';
import { EditorGone } from '../../../agent/editors/call.ts';
import { NORMAL_DRIVERS, waitFor, type Driver, type DriverOptions } from '../../helpers/editors.ts';
import { answerKeys, answerPrompt, promptArmed, promptStates, shown } from '../../helpers/prompt-view.ts';

const FILES: DriverOptions = { files: { 'notes.txt': 'one\ntwo\nthree\n' }, open: ['notes.txt'] };

/** g:vimrelay_prompt_delay_ms for the cases that check keys sent within the prompt's waits (ms). */
const SLOW_MS = 4_000;

function request(preview: string, over: Partial<AskRequest> = {}): AskRequest {
  return { client: 'claude-desktop', tool: 'run_command', klass: 'exec', editor: 'work', chosenName: 'work', preview, previewChars: [...preview].length, paths: [], ...over };
}

/** How many prompts (floats, popups) the editor shows. */
async function prompts(d: Driver): Promise<number> {
  if (d.kind === 'nvim') {
    return d.expr<number>("luaeval(\"#vim.tbl_filter(function(w) return vim.api.nvim_win_get_config(w).relative ~= '' end, vim.api.nvim_list_wins())\")");
  }
  return d.expr<number>('len(popup_list())');
}

/** Waits for a prompt whose text includes `marker`, and returns its lines. */
function promptWith(d: Driver, marker: string): Promise<string[]> {
  return waitFor(async () => {
    const lines = await shown(d);
    return lines?.some((l) => l.includes(marker)) ? lines : undefined;
  }, 10_000, `a prompt showing ${marker}`);
}

/** Where the user is: window, cursor, mode. */
const whereabouts = (d: Driver): Promise<unknown> => d.expr('[win_getid(), getpos("."), mode()]');

const noPrompt = (d: Driver): Promise<true> => waitFor(async () => ((await prompts(d)) === 0 ? true : undefined), 10_000, 'the prompt to close');

/** Asks with a long deadline; types `keys` once the prompt shows and its keys answer, and the answer comes back. */
async function askAndType(d: Driver, keys: string, marker = `keys ${keys}`): Promise<AskAnswer> {
  const answer = d.editor.ask(request(marker), AbortSignal.timeout(30_000));
  await promptWith(d, marker);
  await promptArmed(d);
  await d.type(keys);
  return answer;
}

/** Whether `answer` has settled, after a round trip to the editor (so every key typed before was taken). */
async function settledAfterRoundTrip(d: Driver, answer: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void answer.then(() => (settled = true), () => (settled = true));
  await d.ok('get_state_brief');
  return settled;
}

describe.each(NORMAL_DRIVERS)('the permission prompt on %s', (_kind, start) => {
  let d: Driver;
  let other: Driver;
  beforeAll(async () => {
    [d, other] = await Promise.all([start(FILES), start(FILES)]);
  });
  afterAll(() => Promise.all([d?.stop(), other?.stop()]));

  it('shows the client, tool, class, editor, paths, preview and keys; Ctrl-G allows once; the user is where they were', async () => {
    await d.cursor('notes.txt', 2, 1);
    const before = await whereabouts(d);
    const answer = d.editor.ask(
      request(':write\n:echo "héllo"', { tool: 'save_buffer', klass: 'save', paths: ['/home/me/notes.txt'] }),
      AbortSignal.timeout(30_000),
    );
    const lines = await promptWith(d, ':echo "héllo"');
    expect(lines.slice(0, 3)).toEqual(['vimrelay: claude-desktop asks to run save_buffer (save)', 'editor: work', 'path: /home/me/notes.txt']);
    // Lines wider than the prompt are cut into several: the text is all there, in order.
    const text = lines.join('');
    for (const line of [...promptKeys(request('')), ':write', ':echo "héllo"']) expect(text).toContain(line);
    await answerPrompt(d, 'allow_once');
    expect(await answer).toEqual({ kind: 'allow_once' });
    await noPrompt(d);
    expect(await whereabouts(d)).toEqual(before);
  });

  it('answers allow_always for Ctrl-T (no key widens the policy beyond its editor), and deny for d, q and <Esc>; o, a and A are no keys', async () => {
    expect(await askAndType(d, answerKeys(d, 'allow_always'), 'keys Ctrl-T')).toEqual({ kind: 'allow_always' });
    // o, a, A and i do nothing; the prompt is still there, and takes the next key.
    expect(await askAndType(d, 'oaAid')).toEqual({ kind: 'deny' });
    expect(await askAndType(d, 'd')).toEqual({ kind: 'deny' });
    expect(await askAndType(d, 'q')).toEqual({ kind: 'deny' });
    expect(await askAndType(d, d.kind === 'nvim' ? '<Esc>' : '\x1b', 'keys Esc')).toEqual({ kind: 'deny' });
    await noPrompt(d);
  });

  it('takes allow only once every row of a prompt taller than the screen has been on screen, and a moment after it last scrolled', async () => {
    const preview = Array.from({ length: 300 }, (_, i) => `:echo ${i}`).join('\n') + "\n:call writefile(['payload'], '/tmp/at-the-end')";
    await d.command(`let g:vimrelay_prompt_delay_ms = ${SLOW_MS}`);
    const answer = d.editor.ask(request(preview), AbortSignal.timeout(60_000));
    await promptWith(d, ':echo 0');
    const allow = answerKeys(d, 'allow_once');
    await promptArmed(d);
    await d.type(allow);
    expect(await settledAfterRoundTrip(d, answer)).toBe(false);
    // The end, skipping the middle: still refused, the middle rows were never shown.
    await d.type('G');
    const [atEnd] = await promptStates(d);
    expect(atEnd?.unseen).toBeGreaterThan(0);
    await promptArmed(d);
    await d.type(allow);
    expect(await settledAfterRoundTrip(d, answer)).toBe(false);
    // Every row, a page at a time from the top: allow right after the last scroll is refused too.
    await d.type('gg');
    for (let page = 0; page < 40 && ((await promptStates(d))[0]?.unseen ?? 0) > 0; page++) await d.type(d.kind === 'nvim' ? '<C-d>' : '\x04');
    expect((await promptStates(d))[0]?.unseen).toBe(0);
    await d.type(allow);
    expect(await settledAfterRoundTrip(d, answer)).toBe(false);
    await answerPrompt(d, 'allow_once');
    expect(await answer).toEqual({ kind: 'allow_once' });
    await noPrompt(d);
    await d.command('unlet g:vimrelay_prompt_delay_ms');
  });

  it('takes no key while the user is typing: what they type goes on where it was, and the prompt takes keys once they stop', async () => {
    const esc = d.kind === 'nvim' ? '<Esc>' : '\x1b';
    // A user who reads slowly makes the prompt wait longer: here, so that however late this
    // machine delivers the keys, they still come within the waits they check.
    await d.command(`let g:vimrelay_prompt_delay_ms = ${SLOW_MS}`);
    await d.cursor('notes.txt', 3, 0);
    await d.type('A');
    await waitFor(async () => ((await d.expr('mode()')) === 'i' ? true : undefined), 10_000, 'Insert mode');
    const answer = d.editor.ask(request('while typing'), AbortSignal.timeout(30_000));
    await promptWith(d, 'while typing');
    // A person typing a note at normal speed, the prompt's own keys among the letters.
    for (const ch of ' typing a note, do as you like') {
      await d.type(ch);
      await new Promise((resolve) => setTimeout(resolve, 120));
    }
    expect(await settledAfterRoundTrip(d, answer)).toBe(false);
    expect((await d.lines(await d.bufnr('notes.txt')))[2]).toBe('three typing a note, do as you like');
    // They stop: the prompt takes keys, but answers none for a moment.
    await waitFor(async () => ((await promptStates(d))[0]?.taking_keys ? true : undefined), 20_000, 'the prompt to take keys');
    await d.type(`${answerKeys(d, 'allow_once')}d${esc}`);
    expect(await settledAfterRoundTrip(d, answer)).toBe(false);
    await answerPrompt(d, 'deny');
    expect(await answer).toEqual({ kind: 'deny' });
    await noPrompt(d);
    expect(await d.expr('mode()')).toBe('i');
    await d.type(esc);
    await waitFor(async () => ((await d.expr('mode()')) === 'n' ? true : undefined), 10_000, 'Normal mode');
    await d.command('call setline(3, "three") | unlet g:vimrelay_prompt_delay_ms');
  });

  it('takes no allow key at a deny-only prompt (a preview too long to show), and d denies', async () => {
    const answer = d.editor.ask(request('', { preview: null, previewChars: 200_000 }), AbortSignal.timeout(30_000));
    const lines = await promptWith(d, 'it can only be denied');
    expect(lines.join('\n')).not.toContain('allow once');
    await promptArmed(d);
    await d.type(answerKeys(d, 'allow_once') + answerKeys(d, 'allow_always'));
    expect(await settledAfterRoundTrip(d, answer)).toBe(false);
    await d.type('d');
    expect(await answer).toEqual({ kind: 'deny' });
    await noPrompt(d);
  });

  it('takes a prompt closed some other way (:close in Neovim, popup_close() in Vim) as a deny', async () => {
    const answer = d.editor.ask(request('closed another way'), AbortSignal.timeout(30_000));
    await promptWith(d, 'closed another way');
    await promptArmed(d);
    if (d.kind === 'nvim') await d.type(':close<CR>');
    else await d.command('call popup_close(popup_list()[0])');
    expect(await answer).toEqual({ kind: 'deny' });
    await noPrompt(d);
  });

  it('asks for a reason after r and sends it with the deny; an empty reason is a plain deny', async () => {
    const enter = d.kind === 'nvim' ? '<CR>' : '\r';
    for (const [typed, expected] of [
      ['too risky, ünïcode', { kind: 'deny', reason: 'too risky, ünïcode' }],
      ['', { kind: 'deny' }],
    ] as const) {
      const answer = d.editor.ask(request(`reason ${typed}`), AbortSignal.timeout(30_000));
      await promptWith(d, `reason ${typed}`);
      await promptArmed(d);
      await d.type('r');
      await waitFor(async () => ((await d.expr('mode()')) === 'c' ? true : undefined), 10_000, 'the reason prompt');
      await d.type(`${typed}${enter}`);
      expect(await answer).toEqual(expected);
      await noPrompt(d);
    }
    await waitFor(async () => ((await d.expr('mode()')) === 'n' ? true : undefined), 10_000, 'Normal mode');
  });

  it('at the deadline takes the prompt down and answers timeout, also while the reason is typed', async () => {
    const before = await whereabouts(d);
    const deadline = new AbortController();
    const answer = d.editor.ask(request('deadline'), deadline.signal);
    await promptWith(d, 'deadline');
    deadline.abort(new Error('deadline'));
    expect(await answer).toEqual({ kind: 'timeout' });
    await noPrompt(d);
    expect(await whereabouts(d)).toEqual(before);

    const reading = new AbortController();
    const second = d.editor.ask(request('half-typed'), reading.signal);
    await promptWith(d, 'half-typed');
    await promptArmed(d);
    await d.type('r');
    await waitFor(async () => ((await d.expr('mode()')) === 'c' ? true : undefined), 10_000, 'the reason prompt');
    await d.type('not fin');
    reading.abort(new Error('deadline'));
    expect(await second).toEqual({ kind: 'timeout' });
    await noPrompt(d);
    await waitFor(async () => ((await d.expr('mode()')) === 'n' ? true : undefined), 10_000, 'Normal mode again');
    expect(await whereabouts(d)).toEqual(before);
    // An ask whose deadline passed while it waited its turn is never shown.
    const gone = new AbortController();
    gone.abort(new Error('deadline'));
    expect(await d.editor.ask(request('never shown'), gone.signal)).toEqual({ kind: 'timeout' });
    expect(await prompts(d)).toBe(0);
  });

  it('shows a second ask on the same editor only once the first is answered', async () => {
    const first = d.editor.ask(request('first ask'), AbortSignal.timeout(30_000));
    await promptWith(d, 'first ask');
    const second = d.editor.ask(request('second ask'), AbortSignal.timeout(30_000));
    // A round trip after the second ask was made: it is still waiting its turn.
    await d.ok('get_state_brief');
    expect(await prompts(d)).toBe(1);
    expect(await shown(d)).toContain('first ask');
    await answerPrompt(d, 'deny');
    expect(await first).toEqual({ kind: 'deny' });
    await promptWith(d, 'second ask');
    expect(await prompts(d)).toBe(1);
    await answerPrompt(d, 'allow_once');
    expect(await second).toEqual({ kind: 'allow_once' });
    await noPrompt(d);
  });

  it('holds up neither tool calls on its editor nor calls and asks on another editor', async () => {
    const waiting = d.editor.ask(request('left open'), AbortSignal.timeout(30_000));
    await promptWith(d, 'left open');
    // Tools on this editor see the user's window and buffer, not the prompt.
    expect(await d.ok('read_buffer', {})).toMatchObject({ lines: ['one', 'two', 'three'] });
    expect(await d.ok('set_cursor', { line: 3, col: 2 })).toMatchObject({ cursor: { line: 3, col: 2 } });
    expect(await shown(d)).toContain('left open');
    expect(await other.ok('read_buffer', { buffer: 'notes.txt' })).toMatchObject({ lines: ['one', 'two', 'three'] });
    expect(await askAndType(other, answerKeys(other, 'allow_once'), 'on the other editor')).toEqual({ kind: 'allow_once' });
    expect(await shown(d)).toContain('left open');
    await answerPrompt(d, 'allow_always');
    expect(await waiting).toEqual({ kind: 'allow_always' });
    await noPrompt(d);
    // The user is back where the tool left the cursor.
    expect(await d.expr('[bufname("%"), line("."), col(".")]')).toEqual(['notes.txt', 3, 2]);
  });

  it('takes its keys in Insert and Visual mode, and gives the user their mode and selection back', async () => {
    const esc = d.kind === 'nvim' ? '<Esc>' : '\x1b';
    const modeIs = (m: string): Promise<true> => waitFor(async () => ((await d.expr('mode(1)')) === m ? true : undefined), 10_000, `mode ${m}`);
    await d.cursor('notes.txt', 1, 0);
    await d.type('i');
    await modeIs('i');
    const inserting = await whereabouts(d);
    expect(await askAndType(d, answerKeys(d, 'allow_once'), 'in insert mode')).toEqual({ kind: 'allow_once' });
    await noPrompt(d);
    expect(await whereabouts(d)).toEqual(inserting);
    expect(await d.lines(await d.bufnr('notes.txt'))).toEqual(['one', 'two', 'three']);
    await d.type(esc);
    await modeIs('n');
    for (const [i, keys] of ['vjl', 'Vj', '\x16jl'].entries()) {
      await d.cursor('notes.txt', 1, 0);
      await d.type(keys);
      await modeIs(keys[0] ?? '');
      const selection = await d.expr('[win_getid(), getpos("."), getpos("v"), mode(1)]');
      expect(await askAndType(d, 'd', `visual #${i}`)).toEqual({ kind: 'deny' });
      await noPrompt(d);
      await waitFor(async () => (JSON.stringify(await d.expr('[win_getid(), getpos("."), getpos("v"), mode(1)]')) === JSON.stringify(selection) ? true : undefined), 10_000, 'the selection back');
      await d.type(esc);
      await modeIs('n');
    }
  });

  it('rejects with EditorGone when the editor goes away with a prompt open (nobody was asked to the end)', async () => {
    const gone = await start(FILES);
    try {
      const answer = gone.editor.ask(request('going away'), AbortSignal.timeout(30_000));
      await promptWith(gone, 'going away');
      // The link closes (as when the editor exits); typing into it to quit would answer the prompt.
      await gone.editor.close();
      await expect(answer).rejects.toBeInstanceOf(EditorGone);
    } finally {
      await gone.stop();
    }
  });
});
