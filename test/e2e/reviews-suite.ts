/**
 * Reviews end to end (README "Reviews"), written once and run over every chain (chains.ts) in both
 * protocol eras: a real MCP client calls the edit tools of a Neovim whose user's policy says
 * `review` for writes, and the user decides in that Neovim as a user does, with keys typed there
 * (nvim_input: ZA, :VimRelayReject, :tabclose, `do`, typing). Every result goes through
 * helpers/mcp.ts `callOk` (its structuredContent validated against the tool's listed outputSchema)
 * or `callErr` (a known code, a message and a hint). What the model gets for each decision:
 * accepted (one undo step), accepted_with_changes (a hunk taken back, a line typed: user_changes),
 * REVIEW_REJECTED with the reason, or "closed" for a closed tab, REVIEW_CONFLICT after the user typed
 * on the same line, pending then review_status (waiting, then the outcome), two queued reviews,
 * and, in the 2026-07-28 era, an lsp_rename across two files with a real pyright (one file accepted,
 * the other rejected). The attacks: `review: false`, crafted arguments and edits of the proposal
 * itself skip no review. Expiry is not here: the agent's expiry can only be shortened in-process
 * (Dispatcher option reviewExpiryMs), so test/agent/reviews/review.test.ts tests it.
 */
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSION_CLASSES } from '../../protocol/index.ts';
import type { McpEra } from '../../protocol/mcp-server.ts';
import { writePolicy, type Policy } from '../../agent/policy/file.ts';
import type { Rule } from '../../agent/policy/types.ts';
import { fixtureFiles, serverConfig, SERVERS, type ServerCase } from '../helpers/lsp.ts';
import { callErr, callOk, ERAS, errorOf } from '../helpers/mcp.ts';
import { reviewShown, reviewStates } from '../helpers/review-view.ts';
import { waitFor } from '../helpers/wait.ts';
import { START_CHAIN, type Chain, type ChainKind } from './chains.ts';

const TEXT = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'];
const PYRIGHT = SERVERS.find((s) => s.name === 'pyright') as ServerCase;
const INIT_LUA = join(import.meta.dirname, '../fixtures/lsp/init.lua');

/** Every class allowed but write, which `write` decides; then `more` rules. */
function policyOf(write: Rule['decision'], more: Rule[] = []): Policy {
  return { rules: [...PERMISSION_CLASSES.map((klass) => ({ klass, decision: klass === 'write' ? write : ('allow' as const) })), ...more], never_read: [] };
}

/** The suite over one chain, once per era. */
export function describeReviews(kind: ChainKind): void {
  for (const era of ERAS) describe(`${era} era`, () => describeReviewsIn(kind, era));
}

function describeReviewsIn(kind: ChainKind, era: McpEra): void {
  let chain: Chain;
  /** What review-view.ts reads the editor through. */
  const view = { kind: 'nvim' as const, expr: <T>(e: string): Promise<T> => chain.nvim.client.eval(e) as Promise<T> };
  const lines = (file = 'notes.md'): Promise<string[]> => chain.nvim.lua('return vim.api.nvim_buf_get_lines(vim.fn.bufnr(...), 0, -1, true)', file);
  const tick = (file = 'notes.md'): Promise<number> => chain.nvim.lua('return vim.api.nvim_buf_get_changedtick(vim.fn.bufnr(...))', file);
  /** Keys the user types, in Neovim's notation. */
  const keys = async (typed: string): Promise<void> => void (await chain.nvim.client.input(typed));
  const mode = (): Promise<string> => chain.nvim.lua<string>('return vim.api.nvim_get_mode().mode');
  const noReviewLeft = (): Promise<true> => waitFor(async () => ((await reviewStates(view)).length === 0 ? true : undefined), 20_000, 'no review left');
  const setPolicy = (policy: Policy): void => writePolicy(chain.policyFile, policy);
  const replace = async (oldText: string, newText: string, more: Record<string, unknown> = {}): Promise<Record<string, unknown>> => ({
    editor: chain.editorId,
    buffer: 'notes.md',
    old_text: oldText,
    new_text: newText,
    expected_changedtick: await tick(),
    ...more,
  });
  /** A call whose result is an error, as callErr checks it, started now. */
  const failing = (name: string, args: Record<string, unknown>): Promise<Record<string, unknown> & { code: string; hint: string }> => callErr(chain.client, name, args);

  beforeAll(async () => {
    chain = await START_CHAIN[kind]({
      files: { 'notes.md': `${TEXT.join('\n')}\n`, ...fixtureFiles(PYRIGHT.fixture) },
      open: ['notes.md'],
      era,
      policy: policyOf('review'),
      // pyright starts only when a Python file is opened (fixtures/lsp/init.lua): in the rename case.
      nvim: { env: { VIMRELAY_TEST_LSP: serverConfig([PYRIGHT]) }, args: ['--cmd', `luafile ${INIT_LUA}`] },
    });
  }, 90_000);
  afterAll(() => chain?.stop());
  afterEach(async () => {
    // What a failed test left is closed as the user would close it, so that the next one starts clean.
    if ((await reviewStates(view)).length > 0) await keys('<Esc>:tabfirst | tabonly!<CR>:VimRelayReview<CR>:tabfirst | tabonly!<CR>');
    // Every review gone, one tab, notes.md as it was, in its window.
    await noReviewLeft();
    expect(await chain.nvim.lua('return #vim.api.nvim_list_tabpages()')).toBe(1);
    await chain.nvim.lua("vim.cmd('buffer notes.md'); vim.api.nvim_buf_set_lines(0, 0, -1, true, ...)", TEXT);
  });

  describe(`reviews over ${kind}`, () => {
    it('accepted: applied as one undo step, and the model hears "accepted"', async () => {
      const before = await tick();
      const outcome = callOk(chain.client, 'find_and_replace', await replace('two', 'TWO'));
      const review = await reviewShown(view);
      expect(await lines()).toEqual(TEXT);
      expect(await tick()).toBe(before);
      await keys('ZA');
      const result = await outcome;
      expect(result).toMatchObject({ changedtick: await tick(), start: { line: 2, col: 1 }, review: { id: review.id, decision: 'accepted' } });
      expect(result.review).not.toHaveProperty('user_changes');
      expect(await lines()).toEqual(['one', 'TWO', ...TEXT.slice(2)]);
      expect(chain.audit().at(-1)).toMatchObject({ tool: 'find_and_replace', decision: 'review:accepted', outcome: 'ok' });
      // One `u` in the user's window undoes it.
      await noReviewLeft();
      await keys('u');
      await waitFor(async () => ((await lines()).join() === TEXT.join() ? true : undefined), 10_000, 'the undo');
    });

    it('accepted with changes: a hunk taken back with `do` and a line typed; user_changes says what the user changed', async () => {
      const diff = ['--- a/notes.md', '+++ b/notes.md', '@@ -2 +2 @@', '-two', '+TWO', '@@ -7 +7 @@', '-seven', '+SEVEN', ''].join('\n');
      const outcome = callOk(chain.client, 'apply_diff', { editor: chain.editorId, buffer: 'notes.md', diff, expected_changedtick: await tick() });
      await reviewShown(view);
      // To the second change, take it back; to line 4, type over it.
      await keys(']c]cdogg3jccFOUR<Esc>');
      await waitFor(async () => ((await mode()) === 'n' && (await chain.nvim.lua<string>('return vim.api.nvim_get_current_line()')) === 'FOUR' ? true : undefined), 10_000, 'the typed line');
      await keys('ZA');
      const result = await outcome;
      const review = result.review as { decision: string; user_changes: string };
      expect(review.decision).toBe('accepted_with_changes');
      expect(review.user_changes).toMatch(/^--- proposal\n\+\+\+ applied\n@@ /);
      expect(review.user_changes).toContain('-four\n+FOUR\n');
      expect(review.user_changes).toContain('-SEVEN\n+seven\n');
      expect(result.changedtick).toBe(await tick());
      expect(await lines()).toEqual(['one', 'TWO', 'three', 'FOUR', 'five', 'six', 'seven', 'eight']);
    });

    it('rejected with a reason: REVIEW_REJECTED carries it, and nothing changed', async () => {
      const before = await tick();
      const outcome = failing('find_and_replace', await replace('two', 'TWO'));
      const review = await reviewShown(view);
      await keys(':VimRelayReject keep the lowercase, it is a quote<CR>');
      const error = await outcome;
      expect(error).toMatchObject({ code: 'REVIEW_REJECTED', review: { id: review.id, decision: 'rejected', reason: 'keep the lowercase, it is a quote' }, hint: 'Follow the reason the user gave.' });
      expect(await lines()).toEqual(TEXT);
      expect(await tick()).toBe(before);
      expect(chain.audit().at(-1)).toMatchObject({ decision: 'review:rejected', outcome: 'REVIEW_REJECTED' });
    });

    it('closed: REVIEW_REJECTED with the reason "closed"', async () => {
      const outcome = failing('find_and_replace', await replace('three', 'THREE'));
      await reviewShown(view);
      await keys(':tabclose<CR>');
      expect(await outcome).toMatchObject({ code: 'REVIEW_REJECTED', review: { decision: 'rejected', reason: 'closed' }, hint: expect.stringMatching(/closed the review/) });
      expect(await lines()).toEqual(TEXT);
    });

    it('a conflict: the user typed on the same line meanwhile; REVIEW_CONFLICT, their text kept, nothing applied', async () => {
      const outcome = failing('find_and_replace', await replace('four', 'FOUR'));
      await reviewShown(view);
      // In the review's tab: to their buffer on the left, type on line 4, back to the proposal, accept.
      await keys('<C-w>h4GA, typed meanwhile<Esc><C-w>l');
      await waitFor(async () => ((await mode()) === 'n' && (await lines())[3] === 'four, typed meanwhile' ? true : undefined), 10_000, 'the user\'s line');
      const typed = await tick();
      await keys('ZA');
      expect(await outcome).toMatchObject({ code: 'REVIEW_CONFLICT', line: 4, review: { decision: 'conflict' } });
      expect(await lines()).toEqual([...TEXT.slice(0, 3), 'four, typed meanwhile', ...TEXT.slice(4)]);
      expect(await tick()).toBe(typed);
    });

    it('pending when the user takes longer than timeout_ms; review_status gives the outcome, waiting for it', async () => {
      const before = await tick();
      const pending = await callOk(chain.client, 'find_and_replace', await replace('two', 'TWO', { timeout_ms: 100 }));
      expect(pending).toMatchObject({ changedtick: before, review: { decision: 'pending' } });
      const id = (pending.review as { id: string }).id;
      expect(chain.audit().at(-1)).toMatchObject({ decision: 'review:pending', outcome: 'ok' });
      expect(await callOk(chain.client, 'review_status', { editor: chain.editorId, id })).toMatchObject({ tool: 'find_and_replace', review: { id, decision: 'pending' } });
      await reviewShown(view, id);
      const status = callOk(chain.client, 'review_status', { editor: chain.editorId, id, wait_ms: 20_000 });
      await keys('ZA');
      expect(await status).toMatchObject({ tool: 'find_and_replace', changedtick: await tick(), review: { id, decision: 'accepted' } });
      expect(await lines()).toEqual(['one', 'TWO', ...TEXT.slice(2)]);
      expect(chain.audit().slice(-2)).toMatchObject([{ tool: 'find_and_replace', decision: 'review:accepted', decided_by: 'editor' }, { tool: 'review_status' }]);
      // Asked again, the same outcome; an id nobody knows is REVIEW_NOT_FOUND.
      expect(await callOk(chain.client, 'review_status', { editor: chain.editorId, id })).toMatchObject({ review: { id, decision: 'accepted' } });
      expect(await failing('review_status', { editor: chain.editorId, id: 'no-such-review' })).toMatchObject({ code: 'REVIEW_NOT_FOUND' });
    });

    it('two reviews queue, each in its tab, listed by get_state, each decided on its own', async () => {
      const first = callOk(chain.client, 'find_and_replace', await replace('two', 'TWO'));
      const a = await reviewShown(view);
      const second = failing('substitute', { editor: chain.editorId, buffer: 'notes.md', pattern: 'five', replacement: 'FIVE' });
      const b = await waitFor(async () => (await reviewStates(view)).find((r) => r.id !== a.id && r.shown), 20_000, 'the second review');
      const state = await callOk(chain.client, 'get_state', { editor: chain.editorId });
      expect(state.reviews).toEqual([
        { id: a.id, buf: expect.any(Number), path: join(chain.nvim.cwd, 'notes.md'), shown: true },
        { id: b.id, buf: expect.any(Number), path: join(chain.nvim.cwd, 'notes.md'), shown: true },
      ]);
      // The second is at the front: rejected, its tab closes, and the first's tab is current again.
      await keys(':VimRelayReject not this one<CR>');
      expect(await second).toMatchObject({ code: 'REVIEW_REJECTED', review: { id: b.id, reason: 'not this one' } });
      await waitFor(async () => ((await reviewStates(view)).length === 1 ? true : undefined), 10_000, 'the second review to close');
      expect(await chain.nvim.lua('return vim.t.vimrelay_review')).toBe(a.id);
      await keys('ZA');
      expect(await first).toMatchObject({ review: { id: a.id, decision: 'accepted' } });
      expect(await lines()).toEqual(['one', 'TWO', ...TEXT.slice(2)]);
    });

    it('never skips a review the policy asks for: review: false is reviewed, crafted arguments are refused before anything runs', async () => {
      const before = await tick();
      const skipping = failing('find_and_replace', await replace('two', 'TWO', { review: false }));
      await reviewShown(view);
      expect(await lines()).toEqual(TEXT);
      await keys(':VimRelayReject<CR>');
      expect(await skipping).toMatchObject({ code: 'REVIEW_REJECTED' });
      await noReviewLeft();
      for (const crafted of [{ review: 'false' }, { review: null }, { review: 0 }, { skip_review: true }, { reviewed: true }, { timeout_ms: 0 }]) {
        const res = (await chain.client.callTool({ name: 'find_and_replace', arguments: await replace('two', 'TWO', crafted) })) as CallToolResult;
        expect(res.isError, JSON.stringify(crafted)).toBe(true);
        expect(errorOf('find_and_replace', res).code, JSON.stringify(crafted)).toBe('INVALID_ARGUMENT');
      }
      expect(await reviewStates(view)).toEqual([]);
      expect(await lines()).toEqual(TEXT);
      expect(await tick()).toBe(before);
    });

    it('reviews what the model asks to (review: true) under a policy that allows writes', async () => {
      setPolicy(policyOf('allow'));
      try {
        const asked = callOk(chain.client, 'find_and_replace', await replace('two', 'TWO', { review: true }));
        await reviewShown(view);
        await keys('ZA');
        expect(await asked).toMatchObject({ review: { decision: 'accepted' } });
        expect(await lines()).toEqual(['one', 'TWO', ...TEXT.slice(2)]);
        // Not asked for: not reviewed.
        expect(await callOk(chain.client, 'find_and_replace', await replace('three', 'THREE'))).not.toHaveProperty('review');
      } finally {
        setPolicy(policyOf('review'));
      }
    });

    it('refuses every edit of a proposal under review, whatever the policy says of its buffer: what the user accepts is what they saw', async () => {
      // The attack: reviews only for notes.md, so that the proposal's buffer (vimrelay://review/<id>)
      // matches no path rule and its edits are allowed; the model changes the proposal while the
      // user reads it, and the user's accept would apply the model's change as the user's.
      setPolicy(policyOf('allow', [{ klass: 'write', decision: 'review', path: '**/notes.md' }]));
      try {
        const pending = await callOk(chain.client, 'find_and_replace', await replace('two', 'TWO', { timeout_ms: 100 }));
        const id = (pending.review as { id: string }).id;
        await reviewShown(view, id);
        const brief = await callOk(chain.client, 'get_state_brief', { editor: chain.editorId });
        const proposal = (brief.buffers as { buf: number; name: string }[]).find((b) => b.name.includes(id));
        if (!proposal) throw new Error(`the proposal's buffer is not in ${JSON.stringify(brief.buffers)}`);
        const read = await callOk(chain.client, 'read_buffer', { editor: chain.editorId, buffer: proposal.buf });
        const guard = { editor: chain.editorId, buffer: proposal.buf, expected_changedtick: read.changedtick };
        const attempts: [string, Record<string, unknown>][] = [
          ['find_and_replace', { ...guard, old_text: 'eight', new_text: 'eight; and a line nobody reviewed' }],
          ['write_buffer', { ...guard, text: `${TEXT.join('\n')}\nsomething nobody reviewed\n` }],
          ['apply_diff', { ...guard, diff: ['--- a', '+++ b', '@@ -8 +8 @@', '-eight', '+EIGHT', ''].join('\n') }],
          ['substitute', { editor: chain.editorId, buffer: proposal.buf, pattern: 'eight', replacement: 'EIGHT' }],
          ['undo', { editor: chain.editorId, buffer: proposal.buf }],
        ];
        for (const [tool, args] of attempts) expect(await failing(tool, args), tool).toMatchObject({ code: 'EDITOR_ERROR', message: expect.stringContaining('review') });
        expect(await lines(`vimrelay://review/${id}`)).toEqual(['one', 'TWO', ...TEXT.slice(2)]);
        const status = callOk(chain.client, 'review_status', { editor: chain.editorId, id, wait_ms: 20_000 });
        await keys('ZA');
        expect(await status).toMatchObject({ review: { id, decision: 'accepted' } });
        expect(await lines()).toEqual(['one', 'TWO', ...TEXT.slice(2)]);
      } finally {
        setPolicy(policyOf('review'));
      }
    });

    it.runIf(era === 'modern')('lsp_rename across two files (pyright): one accepted, one rejected; partly_accepted, per file', async () => {
      const [first, second] = PYRIGHT.renamed;
      if (!first || !second) throw new Error('the fixture renames in two files');
      const original = fixtureFiles(PYRIGHT.fixture);
      await keys(`:edit ${PYRIGHT.rename.file}<CR>`);
      await waitFor(async () => ((await chain.nvim.lua<boolean>('return vim.b.test_lsp_ready == true')) ? true : undefined), 60_000, 'pyright to analyse the file');
      const { file, line, col } = PYRIGHT.rename;
      const outcome = callOk(chain.client, 'lsp_rename', { editor: chain.editorId, buffer: file, line, col, new_name: PYRIGHT.renameTo, apply: true, expected_changedtick: await tick(file) });
      await waitFor(async () => {
        const states = await reviewStates(view);
        return states.length === 2 && states.every((r) => r.shown) ? true : undefined;
      }, 30_000, 'a review of each file');
      for (const f of PYRIGHT.renamed) expect((await lines(f)).join('\n'), f).toBe(original[f]?.replace(/\n$/, ''));
      // The model's view tells which review is which file; the user goes to each one's tab.
      const held = (await callOk(chain.client, 'get_state', { editor: chain.editorId })).reviews as { id: string; path: string }[];
      const decide = async (f: string, command: string): Promise<void> => {
        const review = held.find((r) => r.path === join(chain.nvim.cwd, f));
        if (!review) throw new Error(`no review of ${f} in ${JSON.stringify(held)}`);
        const tab = await chain.nvim.lua<number>("for i, t in ipairs(vim.api.nvim_list_tabpages()) do if vim.t[t].vimrelay_review == ... then return i end end return 0", review.id);
        await keys(`:${tab}tabnext<CR>:${command}<CR>`);
        await waitFor(async () => ((await reviewStates(view)).some((r) => r.id === review.id) ? undefined : true), 10_000, `the review of ${f} to close`);
      };
      await decide(second, 'VimRelayReject keep this file as it is');
      await decide(first, 'VimRelayAccept');
      const result = await outcome;
      expect(result).toMatchObject({
        applied: true,
        review: {
          decision: 'partly_accepted',
          files: expect.arrayContaining([
            { path: join(chain.nvim.cwd, first), decision: 'accepted' },
            { path: join(chain.nvim.cwd, second), decision: 'rejected', reason: 'keep this file as it is' },
          ]),
        },
      });
      expect((await lines(first)).join('\n')).toContain(PYRIGHT.renameTo);
      expect((await lines(second)).join('\n')).toBe(original[second]?.replace(/\n$/, ''));
    }, 120_000);
  });
}
