// send_to_terminal on a real Neovim with real :terminal jobs (cat on a pty): the text reaches the
// job and its output appears in the buffer; trailing newlines stripped, submit presses Enter;
// terminals chosen by number, exact name or title, unique substring, or by default; errors list
// the terminals; an exited job is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEND_TO_TERMINAL_LIMITS } from '../../protocol/index.ts';
import { startEditor, waitFor, type EditorFixture } from './support.ts';

const TEXT = 'héllo wörld — 日本語 🎉';

describe('send_to_terminal', () => {
  let f: EditorFixture;
  let file: number;
  /** Opens `:terminal <cmd>` in a split, goes back to the file's window, returns the terminal's buffer. */
  const openTerminal = (cmd: string): Promise<number> =>
    f.nvim.lua<number>('local w = vim.api.nvim_get_current_win(); vim.cmd("split | terminal " .. ...); local b = vim.api.nvim_get_current_buf(); vim.api.nvim_set_current_win(w); return b', cmd);
  /** The terminal's lines without the empty ones. */
  const screen = async (buf: number): Promise<string[]> =>
    (await f.nvim.lua<string[]>('return vim.api.nvim_buf_get_lines(..., 0, -1, false)', buf)).filter((l) => l !== '');
  const until = (buf: number, lines: string[]): Promise<boolean> =>
    waitFor(async () => (JSON.stringify(await screen(buf)) === JSON.stringify(lines) ? true : undefined), 5_000, `terminal ${buf} to show ${JSON.stringify(lines)}`);

  beforeAll(async () => {
    f = await startEditor({ files: { 'notes.txt': 'notes\n' }, open: ['notes.txt'] });
    file = await f.nvim.lua<number>('return vim.api.nvim_get_current_buf()');
  });
  afterAll(() => f.stop());

  it('says when the editor has no terminal', async () => {
    expect(await f.call('send_to_terminal', { text: 'ls', submit: true })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND', terminals_total: 0 } });
  });

  it('writes to the only terminal by default; submit presses Enter, and the job\'s output shows in the buffer', async () => {
    const term = await openTerminal('cat');
    const data = await f.ok('send_to_terminal', { text: `${TEXT}\n`, submit: true });
    expect(data).toMatchObject({ buf: term, name: expect.stringMatching(/^term:\/\/.*:cat$/), bytes: Buffer.byteLength(TEXT) + 1, submitted: true });
    expect(data.channel).toBe(await f.nvim.lua('return vim.b[...].terminal_job_id', term));
    // The pty echoes the line, then cat prints it back.
    await until(term, [TEXT, TEXT]);
  });

  it('strips trailing newlines and submits nothing unless asked', async () => {
    const term = await openTerminal('cat');
    const typed = await f.ok('send_to_terminal', { terminal: term, text: 'typed\r\n\n' });
    expect(typed).toMatchObject({ bytes: 5, submitted: false });
    await until(term, ['typed']);
    expect(await f.ok('send_to_terminal', { terminal: term, text: '', submit: true })).toMatchObject({ bytes: 1 });
    await until(term, ['typed', 'typed']);
  });

  it('picks a terminal by exact name or title, then by unique substring; several or none are refused with the list', async () => {
    const plain = await openTerminal('cat');
    const unbuffered = await openTerminal('cat -u');
    await f.nvim.lua('vim.b[...].term_title = "build 日本"', unbuffered);
    const name = await f.nvim.lua<string>('return vim.api.nvim_buf_get_name(...)', plain);

    expect(await f.ok('send_to_terminal', { terminal: name, text: 'x' })).toMatchObject({ buf: plain });
    expect(await f.ok('send_to_terminal', { terminal: 'build 日本', text: 'x' })).toMatchObject({ buf: unbuffered });
    expect(await f.ok('send_to_terminal', { terminal: 'cat -u', text: 'x' })).toMatchObject({ buf: unbuffered });

    const several = await f.call('send_to_terminal', { terminal: ':cat', text: 'x' });
    expect(several).toMatchObject({ ok: false, error: { code: 'MULTIPLE_MATCHES', terminals_total: 4 } });
    const listed = !several.ok && (several.error.terminals as { buf: number; title: string; running: boolean }[]);
    expect(listed && listed.map((t) => t.buf)).toContain(unbuffered);
    expect(listed && listed.find((t) => t.buf === unbuffered)).toMatchObject({ title: 'build 日本', running: true });

    expect(await f.call('send_to_terminal', { terminal: 'no such terminal', text: 'x' })).toMatchObject({ ok: false, error: { code: 'BUFFER_NOT_FOUND', terminals_total: 4 } });
    expect(await f.call('send_to_terminal', { terminal: file, text: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'BUFFER_NOT_FOUND', message: `Buffer ${file} is not a terminal.` },
    });
    // With several terminals and a file current, the default is ambiguous.
    expect(await f.call('send_to_terminal', { text: 'x' })).toMatchObject({ ok: false, error: { code: 'MULTIPLE_MATCHES' } });
    // The current buffer wins when it is a terminal.
    await f.nvim.lua('vim.api.nvim_set_current_buf(...)', unbuffered);
    expect(await f.ok('send_to_terminal', { text: 'x' })).toMatchObject({ buf: unbuffered });
    await f.nvim.lua('vim.api.nvim_set_current_buf(...)', file);
  });

  it('refuses a terminal whose job has exited', async () => {
    const term = await openTerminal('cat');
    await f.nvim.lua('vim.fn.jobstop(vim.b[...].terminal_job_id)', term);
    await waitFor(async () => ((await f.nvim.lua<number[]>('return vim.fn.jobwait({vim.b[...].terminal_job_id}, 0)', term))[0] !== -1 ? true : undefined), 5_000, 'the job to exit');
    const outcome = await f.call('send_to_terminal', { terminal: term, text: 'x', submit: true });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(!outcome.ok && (outcome.error.terminals as { buf: number; running: boolean }[]).find((t) => t.buf === term)).toMatchObject({ running: false });
  });

  it('refuses text over the cap', async () => {
    const outcome = await f.call('send_to_terminal', { terminal: 1, text: 'x'.repeat(SEND_TO_TERMINAL_LIMITS.textChars + 1) });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
  });
});
