// The editor call contract (agent/editors/call.ts), pure: reading an editor's answer against the
// tool's output schema, telling EDITOR_OFFLINE, TIMEOUT, CANCELLED and editor errors apart, and the
// bookkeeping of deferred answers (runTool itself runs on real editors: editors/tools/lsp-*.test.ts).
import { describe, expect, it } from 'vitest';
import { readBuffer, runCommand } from '../../../protocol/index.ts';
import { abortedOutcome, CallCancelled, CallDeadline, DeferredAnswers, EditorError, EditorGone, failedOutcome, readResult } from '../../../agent/editors/call.ts';

describe('outcomes', () => {
  const page = { buf: 1, path: null, changedtick: 3, total_lines: 1, start_line: 1, end_line: 1, lines: ['x'], truncated: false, next_start_line: null };

  it('passes data that matches the output schema, and refuses data that does not', () => {
    expect(readResult(readBuffer, { ok: true, data: page }, 'Neovim')).toEqual({ ok: true, data: page });
    expect(readResult(readBuffer, { ok: true, data: { ...page, lines: 'x' } }, 'Neovim')).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(readResult(readBuffer, 'nonsense', 'Neovim')).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
  });

  it('keeps Lua error details and default hints, and maps unknown codes to INTERNAL', () => {
    const stale = readResult(readBuffer, { ok: false, error: { code: 'STALE_CHANGEDTICK', message: 'm', current_changedtick: 9 } }, 'Vim');
    expect(stale).toEqual({ ok: false, error: { code: 'STALE_CHANGEDTICK', message: 'm', hint: expect.stringContaining('read_buffer'), current_changedtick: 9 } });
    expect(readResult(readBuffer, { ok: false, error: { code: 'NOPE', message: 'm' } }, 'Neovim')).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
  });

  it('maps thrown errors: offline, timeout (ours or AbortSignal.timeout), cancel, editor error', () => {
    const live = new AbortController().signal;
    expect(failedOutcome(new EditorGone('Neovim'), live)).toMatchObject({ error: { code: 'EDITOR_OFFLINE' } });
    expect(failedOutcome(new EditorError('E5108: boom'), live)).toMatchObject({ error: { code: 'EDITOR_ERROR', message: 'E5108: boom' } });
    const timedOut = AbortSignal.abort(new DOMException('late', 'TimeoutError'));
    expect(failedOutcome(timedOut.reason, timedOut)).toMatchObject({ error: { code: 'TIMEOUT' } });
    const deadline = AbortSignal.abort(new CallDeadline());
    expect(failedOutcome(deadline.reason, deadline, runCommand)).toMatchObject({ error: { code: 'TIMEOUT', hint: runCommand.timeoutHint } });
    const cancelled = AbortSignal.abort(new CallCancelled());
    expect(failedOutcome(cancelled.reason, cancelled)).toMatchObject({ error: { code: 'CANCELLED' } });
    expect(abortedOutcome(cancelled)).toMatchObject({ error: { code: 'CANCELLED' } });
    expect(abortedOutcome(deadline)).toMatchObject({ error: { code: 'TIMEOUT' } });
  });
});

describe('deferred answers', () => {
  it('settles the answer a token waits for, once, and no other', async () => {
    const answers = new DeferredAnswers();
    const a = answers.expect(new AbortController().signal);
    const b = answers.expect(new AbortController().signal);
    expect(a.token).not.toBe(b.token);
    expect(answers.settle(b.token, { ok: true, data: { n: 2 } })).toBe(true);
    expect(answers.settle(b.token, { ok: true, data: { n: 3 } })).toBe(false);
    expect(answers.settle('no-such-token', {})).toBe(false);
    expect(answers.settle(42, {})).toBe(false);
    await expect(b.answer).resolves.toEqual({ ok: true, data: { n: 2 } });
    a.forget();
    expect(answers.settle(a.token, {})).toBe(false);
  });

  it('rejects with the signal\'s reason when the call stops waiting, and EditorGone when the editor goes', async () => {
    const answers = new DeferredAnswers();
    const controller = new AbortController();
    const late = answers.expect(controller.signal);
    controller.abort(new CallDeadline());
    await expect(late.answer).rejects.toBeInstanceOf(CallDeadline);
    expect(answers.settle(late.token, {})).toBe(false);
    const owed = answers.expect(new AbortController().signal);
    answers.abandon();
    await expect(owed.answer).rejects.toBeInstanceOf(EditorGone);
    await expect(answers.expect(new AbortController().signal).answer).rejects.toBeInstanceOf(EditorGone);
  });
});
