// The Vim channel's requests under one call's signal, with a real Vim: a long text goes as many
// staged pieces at once (staging.ts), all under the call's signal, with no leak warning in the
// agent's log and no listener left behind, and Vim drops the pieces of a call cancelled on their
// way; aborting that signal rejects every request it holds (the far end then plays a Vim that
// answers late, so that the requests surely wait).
import { getEventListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallCancelled } from '../../../../agent/editors/call.ts';
import { VimChannel } from '../../../../agent/editors/vim/channel.ts';
import { VIM_CHUNK_UNITS } from '../../../../agent/editors/vim/staging.ts';
import { vimDriver, waitFor, type Driver } from '../../../helpers/editors.ts';

/** A text of `pieces` staged pieces, in lines. */
const textOf = (pieces: number): string => `${'x'.repeat(99)}\n`.repeat((pieces * VIM_CHUNK_UNITS) / 100);

describe('the Vim channel under one signal', () => {
  let d: Driver;
  beforeAll(async () => {
    d = await vimDriver({ files: { 'big.txt': 'old\n' }, open: ['big.txt'] });
  }, 60_000);
  afterAll(() => d?.stop());

  it('stages a text of 40 pieces at once with no leak warning, and leaves no listener on the signal', async () => {
    const controller = new AbortController();
    const text = textOf(40);
    const outcome = await d.call('write_buffer', { buffer: 'big.txt', text, expected_changedtick: await d.tick(await d.bufnr('big.txt')) }, { signal: controller.signal, deadline: Date.now() + 30_000 });
    expect(outcome.ok).toBe(true);
    expect((await d.lines(await d.bufnr('big.txt'))).join('\n') + '\n').toBe(text);
    // A leak warning would fail this test (test/setup/no-warnings.ts).
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('drops in Vim the pieces of a call cancelled while they are on their way', async () => {
    const buf = await d.bufnr('big.txt');
    const before = await d.lines(buf);
    const log = join(d.cwd, 'channel.log');
    await d.expr(`ch_logfile(${JSON.stringify(log)}, 'w')`);
    const controller = new AbortController();
    const call = d.call('write_buffer', { buffer: 'big.txt', text: textOf(40), expected_changedtick: await d.tick(buf) }, { signal: controller.signal, deadline: Date.now() + 30_000 });
    // The pieces are on the channel now (staged as the call starts); none is answered yet.
    controller.abort(new CallCancelled());
    expect(await call).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    // Vim reads its channel in order: this expression comes after the pieces and the drop.
    const staged = await d.expr<Record<string, unknown>>(`getscriptinfo({'sid': getscriptinfo({'name': 'autoload/vimrelay\\.vim$'})[0].sid})[0].variables.staged`);
    await d.expr("ch_logfile('')");
    // Vim ran every piece's call, then the drop (its channel log says what it called).
    const ran = readFileSync(log, 'utf8').match(/Calling '[^']*'/g) ?? [];
    expect(ran.filter((c) => c === "Calling 'vimrelay#stage'").length).toBeGreaterThanOrEqual(40);
    expect(ran.filter((c) => c !== "Calling 'vimrelay#stage'").slice(0, 1)).toEqual(["Calling 'vimrelay#unstage'"]);
    expect(staged).toEqual({});
    expect(await d.lines(buf)).toEqual(before);
  });
});

describe('the Vim channel when a signal aborts', () => {
  it('rejects every request waiting under it with its reason, leaves no listener, and ignores their late answers', async () => {
    // The far end plays a Vim that reads every request and answers none until told to.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const far = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const near = createConnection((server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise((resolve) => near.once('connect', resolve));
    const vim = await far;
    const received: [string, string, unknown[], number][] = [];
    let buffered = '';
    vim.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
        received.push(JSON.parse(buffered.slice(0, nl)) as [string, string, unknown[], number]);
        buffered = buffered.slice(nl + 1);
      }
    });
    const channel = new VimChannel(near);
    try {
      const controller = new AbortController();
      const calls = Array.from({ length: 40 }, (_, i) => channel.call('vimrelay#stage', ['1', `piece ${i}`], controller.signal));
      const other = channel.call('vimrelay#call', ['state', {}, {}], AbortSignal.timeout(30_000));
      await waitFor(() => (received.length === 41 ? true : undefined), 10_000, 'Vim to receive every request');
      // One listener for the 40 (the agent's log would warn past 10).
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
      const reason = new CallCancelled();
      controller.abort(reason);
      const settled = await Promise.allSettled(calls);
      expect(settled.every((s) => s.status === 'rejected' && s.reason === reason)).toBe(true);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      // Late answers to the aborted requests are dropped; the request under another signal is answered.
      for (const [, , , id] of received) vim.write(JSON.stringify([id, `answer ${id}`]) + '\n');
      expect(await other).toBe(`answer ${received[40]?.[3]}`);
      expect(channel.isClosed).toBe(false);
    } finally {
      await channel.close();
      vim.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
