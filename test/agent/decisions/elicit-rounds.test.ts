// Deciding by rounds (agent/decisions/elicit-rounds.ts, spec 2026-07-28 MRTR) over the agent's real
// decision book: a call that opens a prompt answers `input_required` with the prompt's form and a
// sealed requestState, the retry's answer settles the prompt through the book and returns the
// call's outcome; and each attack on the requestState is refused with its own code, answering
// nothing: used twice (REPLAYED), changed or made with another key (FORGED), echoed with another
// call (FORGED), past its decision's expiry (FORGED), and an answer to what the editor settled
// first (ALREADY_DECIDED, naming it, with what the call came to).
import { describe, expect, it } from 'vitest';
import { fail, type DecisionAnswer, type InputRequiredOutcome, type Surface, type ToolOutcome } from '../../../protocol/index.ts';
import { DecisionBook, type AssistantAsk, type PendingDecision } from '../../../agent/decisions/book.ts';
import { callBinding, ElicitRounds } from '../../../agent/decisions/elicit-rounds.ts';
import { RequestStateSeal } from '../../../agent/decisions/request-state.ts';

const EXPIRY_MS = 30_000;

/** A clock the test moves. */
function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

/**
 * A call as the dispatcher runs one that asks: it opens a prompt in `book`, answerable in the
 * editor and the assistant, and resolves with what the first answer says.
 */
function asking(book: DecisionBook, now: () => number, opened: PendingDecision[], inEditor: ((outcome: ToolOutcome) => void)[]) {
  return (ask: AssistantAsk, signal: AbortSignal): Promise<ToolOutcome> =>
    new Promise<ToolOutcome>((resolve) => {
      const decision = book.open({
        kind: 'prompt',
        editor: 'nvim-1',
        editorName: 'work',
        client: 'claude',
        tool: 'run_command',
        klass: 'exec',
        paths: [],
        sections: [{ title: null, lines: [':let g:x = 1'], chars: 12 }],
        offers: ['allow', 'deny'],
        expiresAt: now() + EXPIRY_MS,
        surfaces: ['editor', 'assistant'],
        assistant: ask,
        onAnswer: (answer: DecisionAnswer, by: Surface) => {
          resolve(answer.kind === 'allow' ? { ok: true, data: { ran: true, by } } : fail('PERMISSION_DENIED', `denied ${by}`));
          decision.close();
          return Promise.resolve(answer.kind === 'allow' ? 'allowed' : 'denied');
        },
      });
      opened.push(decision);
      inEditor.push(resolve);
      signal.addEventListener('abort', () => {
        decision.close();
        resolve(fail('CANCELLED', 'cancelled'));
      });
    });
}

const ARGS = { commands: 'let g:x = 1' };
const BINDING = callBinding('run_command', ARGS);
const live = new AbortController().signal;
const allow = { [`decision`]: { action: 'accept', content: { answer: 'allow' } } };

function setup() {
  const time = clock();
  const book = new DecisionBook(time.now);
  const rounds = new ElicitRounds(book, new RequestStateSeal(), time.now);
  const opened: PendingDecision[] = [];
  const inEditor: ((outcome: ToolOutcome) => void)[] = [];
  return { time, book, rounds, opened, inEditor, run: asking(book, time.now, opened, inEditor) };
}

async function firstRound(s: ReturnType<typeof setup>): Promise<InputRequiredOutcome> {
  const answer = await s.rounds.start(BINDING, s.run, live);
  if (!('inputRequired' in answer)) throw new Error(`expected input_required, got ${JSON.stringify(answer)}`);
  return answer;
}

describe('rounds', () => {
  it('ask the prompt as a form, and the retry with its answer settles it in the assistant and returns the call\'s outcome', async () => {
    const s = setup();
    const first = await firstRound(s);
    expect(first.inputRequired.form.message).toContain(':let g:x = 1');
    expect(first.inputRequired.form.requestedSchema.properties.answer.oneOf.map((o) => o.const)).toEqual(['allow', 'deny']);
    expect(s.book.list('editor')).toHaveLength(1);
    const done = await s.rounds.resume(BINDING, { kind: 'rounds', requestState: first.inputRequired.requestState, inputResponses: allow }, live);
    expect(done).toEqual({ ok: true, data: { ran: true, by: 'assistant' } });
    expect(s.opened[0]?.decidedBy()).toBe('assistant');
  });

  it('take a deny with its reason, and a declined form as a deny', async () => {
    const s = setup();
    const first = await firstRound(s);
    const reason = { decision: { action: 'accept', content: { answer: 'deny', reason: '  not now ' } } };
    expect(await s.rounds.resume(BINDING, { kind: 'rounds', requestState: first.inputRequired.requestState, inputResponses: reason }, live)).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    const t = setup();
    const second = await firstRound(t);
    expect(await t.rounds.resume(BINDING, { kind: 'rounds', requestState: second.inputRequired.requestState, inputResponses: { decision: { action: 'decline' } } }, live)).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', message: 'denied assistant' } });
  });

  it('refuse a requestState used twice (REPLAYED), answering nothing the second time', async () => {
    const s = setup();
    const first = await firstRound(s);
    const state = first.inputRequired.requestState;
    // The form dismissed: the retry waits for the editor, which allows.
    const waiting = s.rounds.resume(BINDING, { kind: 'rounds', requestState: state, inputResponses: { decision: { action: 'cancel' } } }, live);
    expect(await s.rounds.resume(BINDING, { kind: 'rounds', requestState: state, inputResponses: allow }, live)).toMatchObject({ ok: false, error: { code: 'REPLAYED' } });
    expect(s.book.list('editor')).toHaveLength(1);
    expect(s.opened[0]?.claim('editor')).toEqual({ won: true });
    s.opened[0]?.close();
    s.inEditor[0]?.({ ok: true, data: { ran: true, by: 'editor' } });
    // The dismissed form's retry gets what the editor's answer came to.
    expect(await waiting).toEqual({ ok: true, data: { ran: true, by: 'editor' } });
  });

  it('refuse a changed requestState, one sealed with another key, and one echoed with another call (FORGED)', async () => {
    const s = setup();
    const first = await firstRound(s);
    const state = first.inputRequired.requestState;
    const [v, body, mac] = state.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
    const changed = `${v}.${Buffer.from(JSON.stringify({ ...payload, expires: 9e15 })).toString('base64url')}.${mac}`;
    const other = new RequestStateSeal().seal(payload as never);
    for (const forged of [changed, other, 'made-up', `${state}x`]) {
      expect(await s.rounds.resume(BINDING, { kind: 'rounds', requestState: forged, inputResponses: allow }, live), forged).toMatchObject({ ok: false, error: { code: 'FORGED' } });
    }
    // The genuine state with another command: refused, and still unspent.
    const another = callBinding('run_command', { commands: 'call system("rm -rf ~")' });
    expect(await s.rounds.resume(another, { kind: 'rounds', requestState: state, inputResponses: allow }, live)).toMatchObject({ ok: false, error: { code: 'FORGED', message: expect.stringContaining('another call') } });
    expect(s.book.list('assistant')).toHaveLength(1);
    expect(await s.rounds.resume(BINDING, { kind: 'rounds', requestState: state, inputResponses: allow }, live)).toEqual({ ok: true, data: { ran: true, by: 'assistant' } });
  });

  it('refuse a requestState past its decision\'s expiry (FORGED)', async () => {
    const s = setup();
    const first = await firstRound(s);
    s.time.advance(EXPIRY_MS);
    expect(await s.rounds.resume(BINDING, { kind: 'rounds', requestState: first.inputRequired.requestState, inputResponses: allow }, live)).toMatchObject({ ok: false, error: { code: 'FORGED', message: expect.stringContaining('expired') } });
    s.opened[0]?.close();
  });

  it('refuse an answer to what the editor settled first (ALREADY_DECIDED, by the editor), with what the call came to', async () => {
    const s = setup();
    const first = await firstRound(s);
    expect(s.opened[0]?.claim('editor')).toEqual({ won: true });
    s.opened[0]?.close();
    s.inEditor[0]?.({ ok: true, data: { ran: true, by: 'editor' } });
    const late = await s.rounds.resume(BINDING, { kind: 'rounds', requestState: first.inputRequired.requestState, inputResponses: allow }, live);
    expect(late).toMatchObject({ ok: false, error: { code: 'ALREADY_DECIDED', by: 'editor', outcome: { ran: true, by: 'editor' } } });
  });

  it('refuse a reply the form did not offer (INVALID_ANSWER), answering nothing', async () => {
    const s = setup();
    const first = await firstRound(s);
    const accept = { decision: { action: 'accept', content: { answer: 'accept' } } };
    expect(await s.rounds.resume(BINDING, { kind: 'rounds', requestState: first.inputRequired.requestState, inputResponses: accept }, live)).toMatchObject({ ok: false, error: { code: 'INVALID_ANSWER' } });
    expect(s.book.list('assistant')).toHaveLength(1);
    s.opened[0]?.close();
  });
});
