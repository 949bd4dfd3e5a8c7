// send_to_terminal, the same cases on a real Neovim and on a real Vim with real terminal jobs (cat
// on a pty): the text reaches the job and shows in the terminal, trailing newlines stripped, submit
// presses Enter; terminals chosen by number, exact name or title, unique substring, or by default
// (the current terminal, else the only one); errors list the terminals; an exited job is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEND_TO_TERMINAL_LIMITS } from '../../../../protocol/index.ts';
import { type Driver, DRIVERS } from '../../../helpers/editors.ts';
import { waitFor } from '../../../helpers/editors.ts';

const TEXT = 'héllo wörld — 日本語 🎉';
/** Sets the terminal's title (OSC 0, as a shell prompt would), then runs its arguments. */
const TITLED = "printf '\\033]0;build 日本\\007'; exec \"$@\"\n";

describe.each(DRIVERS)('send_to_terminal on %s', (_kind, start) => {
  let d: Driver;
  /** Opens a terminal running `cmd` in a split, goes back to the previous window, returns its buffer. */
  const openTerminal = async (cmd: string): Promise<number> => {
    if (d.kind === 'nvim') await d.command('split');
    await d.command(`terminal ${cmd}`);
    const buf = await d.expr<number>('bufnr("%")');
    await d.command('wincmd p');
    return buf;
  };
  /** The terminal's non-empty lines (Vim: its screen; Neovim: its buffer). */
  const screen = async (buf: number): Promise<string[]> =>
    (await d.expr<string[]>(d.kind === 'vim' ? `map(range(1, term_getsize(${buf})[0]), 'term_getline(${buf}, v:val)')` : `getbufline(${buf}, 1, '$')`)).filter((l) => l !== '');
  const until = (buf: number, lines: string[]): Promise<boolean> =>
    waitFor(async () => (JSON.stringify(await screen(buf)) === JSON.stringify(lines) ? true : undefined), 5_000, `terminal ${buf} to show ${JSON.stringify(lines)}`);

  beforeAll(async () => {
    d = await start({ files: { 'notes.txt': 'notes\n', 'titled.sh': TITLED }, open: ['notes.txt'] });
  });
  afterAll(() => d.stop());

  it('says when the editor has no terminal', async () => {
    expect(await d.call('send_to_terminal', { text: 'ls', submit: true })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND', terminals_total: 0 } });
  });

  it("writes to the only terminal by default; submit presses Enter, and the job's output shows", async () => {
    const term = await openTerminal('cat');
    const data = await d.ok('send_to_terminal', { text: `${TEXT}\n`, submit: true });
    expect(data).toMatchObject({ buf: term, bytes: Buffer.byteLength(TEXT) + 1, submitted: true });
    expect(data.name).toMatch(d.kind === 'nvim' ? /^term:\/\/.*:cat$/ : /^!cat$/);
    expect(data.channel).toBe(await d.expr(d.kind === 'nvim' ? `getbufvar(${term}, 'terminal_job_id')` : `ch_info(job_getchannel(term_getjob(${term}))).id`));
    // The pty echoes the line, then cat prints it back.
    await until(term, [TEXT, TEXT]);
  });

  it('strips trailing newlines, submits nothing unless asked, and picks by number', async () => {
    const term = await openTerminal('sh titled.sh cat -u');
    expect(await d.ok('send_to_terminal', { terminal: term, text: 'typed\r\n\n' })).toMatchObject({ buf: term, bytes: 5, submitted: false });
    await until(term, ['typed']);
    expect(await d.ok('send_to_terminal', { terminal: term, text: '', submit: true })).toMatchObject({ bytes: 1 });
    await until(term, ['typed', 'typed']);
  });

  it('picks by exact name or title, then unique substring; several, none, or a non-terminal are refused with the list', async () => {
    const [plain, unbuffered, file] = [await d.bufnr('cat'), await d.bufnr('cat -u'), await d.bufnr('notes.txt')];
    const title = d.kind === 'nvim' ? `getbufvar(${unbuffered}, 'term_title')` : `term_gettitle(${unbuffered})`;
    await waitFor(async () => ((await d.expr<string>(title)) === 'build 日本' ? true : undefined), 5_000, 'the job to set its title');
    const name = await d.expr<string>(`bufname(${plain})`);
    expect(await d.ok('send_to_terminal', { terminal: name, text: 'x' })).toMatchObject({ buf: plain });
    expect(await d.ok('send_to_terminal', { terminal: 'build 日本', text: 'x' })).toMatchObject({ buf: unbuffered });
    expect(await d.ok('send_to_terminal', { terminal: 'cat -u', text: 'x' })).toMatchObject({ buf: unbuffered });
    const several = await d.call('send_to_terminal', { terminal: 'cat', text: 'x' });
    expect(several).toMatchObject({ ok: false, error: { code: 'MULTIPLE_MATCHES', terminals_total: 2 } });
    expect(!several.ok && several.error.terminals).toMatchObject([
      { buf: plain, running: true },
      { buf: unbuffered, title: 'build 日本', running: true },
    ]);
    expect(await d.call('send_to_terminal', { terminal: 'nope', text: 'x' })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND', terminals_total: 2 } });
    expect(await d.call('send_to_terminal', { terminal: file, text: 'x' })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND', message: `Buffer ${file} is not a terminal.` } });
    // With several terminals and a file current, the default is ambiguous; a current terminal wins.
    expect(await d.call('send_to_terminal', { text: 'x' })).toMatchObject({ ok: false, error: { code: 'MULTIPLE_MATCHES', terminals: [{ buf: plain }, { buf: unbuffered }] } });
    await d.command(`buffer ${unbuffered}`);
    expect(await d.ok('send_to_terminal', { text: 'x' })).toMatchObject({ buf: unbuffered });
    await d.command(`buffer ${file}`);
  });

  it('is the only tool that writes to a terminal: the editing tools refuse its buffer, changing nothing', async () => {
    const term = await d.bufnr('cat');
    const tick = await d.tick(term);
    const edits: [string, Record<string, unknown>][] = [
      ['find_and_replace', { old_text: TEXT, new_text: 'EDITED' }],
      ['write_buffer', { text: 'EDITED\n' }],
      ['apply_diff', { diff: `@@ -1 +1 @@\n-${TEXT}\n+EDITED\n` }],
      ['substitute', { pattern: 'h', replacement: 'EDITED' }],
      ['undo', {}],
    ];
    for (const [tool, args] of edits) {
      expect(await d.call(tool, { buffer: term, expected_changedtick: tick, ...args }), tool).toEqual({
        ok: false,
        error: {
          code: 'EDITOR_ERROR',
          message: `Buffer ${term} is a terminal, whose text is its output: it cannot be edited. Nothing was changed.`,
          hint: 'To type into the terminal, use send_to_terminal.',
        },
      });
    }
    // Its text, not its changedtick (which moves with the terminal's own refreshes on Neovim), nor
    // its lines as they were (the job may still be echoing what earlier tests sent it).
    const shown = await screen(term);
    expect(shown).toContain(TEXT);
    expect(shown.join('\n')).not.toContain('EDITED');
  });

  it('refuses a terminal whose job has exited', async () => {
    const done = await openTerminal('true');
    await waitFor(async () => ((await d.expr<number>(d.kind === 'vim' ? `term_getstatus(${done}) =~# 'finished'` : `jobwait([getbufvar(${done}, '&channel')], 0)[0] != -1`)) ? true : undefined), 5_000, 'the job to exit');
    const outcome = await d.call('send_to_terminal', { terminal: done, text: 'x', submit: true });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(!outcome.ok && (outcome.error.terminals as { buf: number; running: boolean }[]).find((t) => t.buf === done)).toMatchObject({ running: false });
  });

  it('refuses text over the cap', async () => {
    expect(await d.call('send_to_terminal', { terminal: 1, text: 'x'.repeat(SEND_TO_TERMINAL_LIMITS.textChars + 1) })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
  });
});
