// send_to_terminal, the same cases on a real Neovim and on a real Vim with real terminal jobs (cat
// on a pty): the text reaches the job and shows in the terminal, trailing newlines stripped, submit
// presses Enter; terminals chosen by number, exact name, unique substring or by default; errors
// list the terminals; an exited job is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nvimDriver, vimDriver, type Driver } from './drivers.ts';
import { waitFor } from './support.ts';

const TEXT = 'héllo wörld — 日本語 🎉';

describe.each([
  ['Neovim', nvimDriver],
  ['Vim', vimDriver],
] as const)('send_to_terminal on %s', (_kind, start) => {
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
    d = await start({ files: { 'notes.txt': 'notes\n' }, open: ['notes.txt'] });
  });
  afterAll(() => d.stop());

  it('says when the editor has no terminal', async () => {
    expect(await d.call('send_to_terminal', { text: 'ls', submit: true })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND', terminals_total: 0 } });
  });

  it("writes to the only terminal by default; submit presses Enter, and the job's output shows", async () => {
    const term = await openTerminal('cat');
    const data = await d.ok('send_to_terminal', { text: `${TEXT}\n`, submit: true });
    expect(data).toMatchObject({ buf: term, bytes: Buffer.byteLength(TEXT) + 1, submitted: true, channel: expect.any(Number) });
    // The pty echoes the line, then cat prints it back.
    await until(term, [TEXT, TEXT]);
  });

  it('strips trailing newlines, submits nothing unless asked, and picks by number', async () => {
    const term = await openTerminal('cat -u');
    expect(await d.ok('send_to_terminal', { terminal: term, text: 'typed\r\n\n' })).toMatchObject({ buf: term, bytes: 5, submitted: false });
    await until(term, ['typed']);
    expect(await d.ok('send_to_terminal', { terminal: term, text: '', submit: true })).toMatchObject({ bytes: 1 });
    await until(term, ['typed', 'typed']);
  });

  it('picks by exact name, then unique substring; several, none, or a non-terminal are refused with the list', async () => {
    const [plain, unbuffered] = [await d.bufnr('cat'), await d.bufnr('cat -u')];
    const name = await d.expr<string>(`bufname(${plain})`);
    expect(await d.ok('send_to_terminal', { terminal: name, text: 'x' })).toMatchObject({ buf: plain });
    expect(await d.ok('send_to_terminal', { terminal: 'cat -u', text: 'x' })).toMatchObject({ buf: unbuffered });
    expect(await d.call('send_to_terminal', { terminal: 'cat', text: 'x' })).toMatchObject({ ok: false, error: { code: 'MULTIPLE_MATCHES', terminals_total: 2 } });
    expect(await d.call('send_to_terminal', { text: 'x' })).toMatchObject({ ok: false, error: { code: 'MULTIPLE_MATCHES', terminals: [{ buf: plain }, { buf: unbuffered }] } });
    expect(await d.call('send_to_terminal', { terminal: 'nope', text: 'x' })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND', terminals_total: 2 } });
    expect(await d.call('send_to_terminal', { terminal: await d.bufnr('notes.txt'), text: 'x' })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND', message: expect.stringContaining('not a terminal') } });
  });

  it('refuses a terminal whose job has exited', async () => {
    const done = await openTerminal('true');
    await waitFor(async () => ((await d.expr<number>(d.kind === 'vim' ? `term_getstatus(${done}) =~# 'finished'` : `jobwait([getbufvar(${done}, '&channel')], 0)[0] != -1`)) ? true : undefined), 5_000, 'the job to exit');
    expect(await d.call('send_to_terminal', { terminal: done, text: 'x' })).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
  });
});
