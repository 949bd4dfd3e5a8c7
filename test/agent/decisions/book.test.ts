// The agent's pending decisions (agent/decisions/book.ts), the one place that says who decided:
// each part of a decision is claimed once, by the first surface that answers it, and every later
// answer is refused naming that surface; an answer from a surface the policy keeps it off, one it
// does not offer, or one to a decision that closed or expired is refused with its own code; a
// review's files are claimed one by one (the editor) or all that are left (the page); the list the
// relay publishes holds only what may be answered there, and fits the wire.
import { describe, expect, it } from 'vitest';
import { DECISION_LIMITS, LIMITS, parseAgentMessage, type DecisionAnswer, type Surface, type WireDecision } from '../../../protocol/index.ts';
import { DecisionBook, type DecisionSpec, type Said } from '../../../agent/decisions/book.ts';
import { PUBLISH_BUDGET_BYTES, publishable } from '../../../agent/relay/decisions.ts';

/** A clock the test moves. */
function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

/** A spec whose owner records every answer it was handed. */
function spec(overrides: Partial<DecisionSpec> = {}, handed: { answer: DecisionAnswer; by: Surface; parts: readonly number[] }[] = []): DecisionSpec {
  return {
    kind: 'prompt',
    editor: 'nvim-1',
    editorName: 'work',
    client: 'claude',
    tool: 'run_command',
    klass: 'exec',
    paths: ['/home/u/a.txt'],
    sections: [{ title: null, lines: [':w'], chars: 2 }],
    offers: ['allow', 'deny'],
    expiresAt: 1_000_000 + 30_000,
    surfaces: ['editor', 'dashboard'],
    onAnswer: (answer, by, parts): Promise<Said> => {
      handed.push({ answer, by, parts });
      return Promise.resolve(answer.kind === 'allow' ? 'allowed' : 'denied');
    },
    ...overrides,
  };
}

describe('a prompt', () => {
  it('is settled by the first answer: the page wins, the editor after it loses, and a second page answer hears who decided', async () => {
    const handed: { answer: DecisionAnswer; by: Surface; parts: readonly number[] }[] = [];
    const book = new DecisionBook(clock().now);
    const d = book.open(spec({}, handed));
    expect(await book.answer(d.id, { kind: 'allow' }, 'dashboard')).toEqual({ ok: true, said: 'allowed' });
    expect(handed).toEqual([{ answer: { kind: 'allow' }, by: 'dashboard', parts: [0] }]);
    expect(d.claim('editor')).toEqual({ won: false, by: 'dashboard' });
    expect(d.decidedBy()).toBe('dashboard');
    expect(await book.answer(d.id, { kind: 'deny' }, 'dashboard')).toEqual({ ok: false, code: 'ALREADY_DECIDED', by: 'dashboard' });
    expect(handed).toHaveLength(1);
    expect(book.list('dashboard')).toEqual([]);
  });

  it('answered in the editor first, refuses the page saying so, and hands the owner nothing', async () => {
    const handed: { answer: DecisionAnswer; by: Surface; parts: readonly number[] }[] = [];
    const book = new DecisionBook(clock().now);
    const d = book.open(spec({}, handed));
    expect(d.claim('editor')).toEqual({ won: true });
    d.close();
    expect(await book.answer(d.id, { kind: 'allow' }, 'dashboard')).toEqual({ ok: false, code: 'ALREADY_DECIDED', by: 'editor' });
    expect(handed).toEqual([]);
  });

  it('refuses each wrong answer with its own code, and settles nothing', async () => {
    const c = clock();
    const book = new DecisionBook(c.now);
    const editorOnly = book.open(spec({ surfaces: ['editor'] }));
    expect(await book.answer(editorOnly.id, { kind: 'allow' }, 'dashboard')).toEqual({ ok: false, code: 'NOT_OFFERED' });
    const denyOnly = book.open(spec({ offers: ['deny'] }));
    expect(await book.answer(denyOnly.id, { kind: 'allow' }, 'dashboard')).toEqual({ ok: false, code: 'INVALID_ANSWER' });
    expect(await book.answer(denyOnly.id, { kind: 'accept' }, 'dashboard')).toEqual({ ok: false, code: 'INVALID_ANSWER' });
    expect(await book.answer('made-up-0000000000000', { kind: 'allow' }, 'dashboard')).toEqual({ ok: false, code: 'NOT_PENDING' });
    // Each is still open to its own surfaces.
    expect(editorOnly.claim('editor')).toEqual({ won: true });
    expect(await book.answer(denyOnly.id, { kind: 'deny', reason: 'no' }, 'dashboard')).toEqual({ ok: true, said: 'denied' });
  });

  it('closed unanswered, or past its expiry, is no longer pending anywhere', async () => {
    const c = clock();
    const book = new DecisionBook(c.now);
    const closed = book.open(spec());
    closed.close();
    expect(await book.answer(closed.id, { kind: 'allow' }, 'dashboard')).toEqual({ ok: false, code: 'NOT_PENDING' });
    expect(closed.claim('editor')).toEqual({ won: false, by: null });
    const expiring = book.open(spec());
    expect(book.list('dashboard').map((d) => d.id)).toEqual([expiring.id]);
    expect(book.count()).toBe(1);
    c.advance(30_000);
    expect(book.list('dashboard')).toEqual([]);
    expect(book.count()).toBe(0);
    expect(await book.answer(expiring.id, { kind: 'allow' }, 'dashboard')).toEqual({ ok: false, code: 'NOT_PENDING' });
  });
});

describe('decisions settled lately', () => {
  it('are listed for the relay with where they were decided, newest first, and only those it could have answered', async () => {
    const c = clock();
    const book = new DecisionBook(c.now);
    const first = book.open(spec());
    const second = book.open(spec());
    const offPage = book.open(spec({ surfaces: ['editor'] }));
    const unanswered = book.open(spec());
    expect(first.claim('editor')).toEqual({ won: true });
    expect(await book.answer(second.id, { kind: 'deny' }, 'dashboard')).toMatchObject({ ok: true });
    expect(offPage.claim('editor')).toEqual({ won: true });
    unanswered.close();
    expect(book.settled('dashboard')).toEqual([
      { id: second.id, by: 'dashboard' },
      { id: first.id, by: 'editor' },
    ]);
    c.advance(15 * 60_000 + 1);
    expect(book.settled('dashboard')).toEqual([]);
  });
});

describe('a review of several files', () => {
  const files = (n: number) => Array.from({ length: n }, (_, i) => ({ title: `/src/f${i}.ts`, lines: [`-old ${i}`, `+new ${i}`], chars: 12 }));

  it('has each file claimed once: the editor one by one, the page all that are left', async () => {
    const handed: { answer: DecisionAnswer; by: Surface; parts: readonly number[] }[] = [];
    const book = new DecisionBook(clock().now);
    const d = book.open(spec({ kind: 'review', tool: 'lsp_rename', klass: 'write', sections: files(3), offers: ['accept', 'reject'], onAnswer: (answer, by, parts) => (handed.push({ answer, by, parts }), Promise.resolve('accepted')) }));
    expect(d.claim('editor', 1)).toEqual({ won: true });
    // The page lists the files still open, and no other.
    expect(book.list('dashboard')[0]?.sections.map((s) => s.title)).toEqual(['/src/f0.ts', '/src/f2.ts']);
    expect(await book.answer(d.id, { kind: 'accept' }, 'dashboard')).toEqual({ ok: true, said: 'accepted' });
    expect(handed).toEqual([{ answer: { kind: 'accept' }, by: 'dashboard', parts: [0, 2] }]);
    expect(d.claim('editor', 2)).toEqual({ won: false, by: 'dashboard' });
    expect(d.claim('editor', 1)).toEqual({ won: false, by: 'editor' });
    expect(d.decidedBy()).toBe('dashboard');
    expect(await book.answer(d.id, { kind: 'reject' }, 'dashboard')).toEqual({ ok: false, code: 'ALREADY_DECIDED', by: 'dashboard' });
  });
});

describe('the surfaces', () => {
  it('are the editor, and the page while it is offered, with its address', () => {
    const book = new DecisionBook();
    const seen: number[] = [];
    book.onChange(() => seen.push(book.available().length));
    expect(book.available()).toEqual(['editor']);
    const withdraw = book.offer('dashboard', 'https://relay.example/dashboard/pending');
    expect(book.available()).toEqual(['editor', 'dashboard']);
    expect(book.pageUrl('dashboard')).toBe('https://relay.example/dashboard/pending');
    withdraw();
    expect(book.available()).toEqual(['editor']);
    expect(book.pageUrl('dashboard')).toBeNull();
    expect(seen).toEqual([2, 1]);
  });

  it('list only what may be answered on each, as the wire takes it', () => {
    const book = new DecisionBook(clock().now);
    const onPage = book.open(spec());
    book.open(spec({ surfaces: ['editor'] }));
    const listed = book.list('dashboard');
    expect(listed.map((d) => d.id)).toEqual([onPage.id]);
    expect(listed[0]).toMatchObject({ kind: 'prompt', editor: 'nvim-1', editor_name: 'work', client: 'claude', tool: 'run_command', klass: 'exec', offers: ['allow', 'deny'], expires_at: new Date(1_030_000).toISOString() });
    expect(book.list('editor')).toHaveLength(2);
  });

  it('name who asks within the wire limit: a long client id beside a shared name is cut, and the Hub takes the list', () => {
    const book = new DecisionBook(clock().now);
    // A Client ID Metadata Document URL beside the name a second client has too (client-names.ts).
    const label = `MCP CLI Proxy (https://tools.example/${'a/'.repeat(150)}client.json)`;
    book.open(spec({ client: label }));
    book.open(spec({ client: `😀${'x'.repeat(DECISION_LIMITS.maxClientChars)}` }));
    const listed = book.list('dashboard');
    expect(listed[0]?.client).toBe(`${label.slice(0, DECISION_LIMITS.maxClientChars - 1)}…`);
    // Cut at a character, never inside one: the emoji whole, the x's after it cut.
    expect(listed[1]?.client).toBe(`😀${'x'.repeat(DECISION_LIMITS.maxClientChars - 3)}…`);
    expect(parseAgentMessage(JSON.stringify({ type: 'decisions', decisions: listed, settled: [] })).ok).toBe(true);
  });
});

describe('publishing', () => {
  const decision = (i: number, text: string): WireDecision => ({
    id: `decision-${String(i).padStart(12, '0')}`,
    kind: 'prompt',
    editor: 'nvim-1',
    editor_name: 'work',
    client: 'claude',
    tool: 'send_to_terminal',
    klass: 'terminal',
    paths: [],
    sections: [{ title: null, lines: [text], chars: text.length }],
    offers: ['allow', 'deny'],
    expires_at: new Date(0).toISOString(),
  });

  it('sends the oldest first, at most maxPublished of them, within the byte budget under the wire limit', () => {
    expect(publishable(Array.from({ length: 30 }, (_, i) => decision(i, 'x'))).map((d) => d.id)).toEqual(Array.from({ length: DECISION_LIMITS.maxPublished }, (_, i) => decision(i, 'x').id));
    // Three-byte characters: 100,000 of them are 300 KB of JSON each.
    const big = Array.from({ length: DECISION_LIMITS.maxPublished }, (_, i) => decision(i, '語'.repeat(DECISION_LIMITS.maxShownChars)));
    const sent = publishable(big);
    const bytes = Buffer.byteLength(JSON.stringify({ type: 'decisions', decisions: sent }));
    expect(sent.length).toBeLessThan(big.length);
    expect(sent.map((d) => d.id)).toEqual(big.slice(0, sent.length).map((d) => d.id));
    expect(bytes).toBeLessThanOrEqual(PUBLISH_BUDGET_BYTES + 100);
    expect(bytes).toBeLessThan(LIMITS.maxWireMessageBytes);
  });
});
