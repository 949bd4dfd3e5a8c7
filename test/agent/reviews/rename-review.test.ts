// An lsp_rename apply under review (README "Reviews"), with a real language server (pyright) on a
// real Neovim and a real Vim with ALE: the rename changes nothing until the user decides; each file
// it changes opens as a review of its own; the user accepts one and rejects the other, and only
// the accepted one changes, as one undo step; the model hears partly_accepted with each file's
// decision. And a rename the policy allows, whose edit reaches a file whose path rule says
// review, is reviewed too (it runs again under review, having changed nothing).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, PERMISSION_CLASSES, type ToolOutcome } from '../../../protocol/index.ts';
import { Dispatcher } from '../../../agent/calls/dispatcher.ts';
import type { Rule } from '../../../agent/policy/types.ts';
import { waitFor, type Driver } from '../../helpers/editors.ts';
import { fixtureFiles, lspDriver, SERVERS, type ServerCase } from '../../helpers/lsp.ts';
import { testGuard } from '../../helpers/policy.ts';
import { reviewStates } from '../../helpers/review-view.ts';

const PYRIGHT = SERVERS.find((s) => s.name === 'pyright') as ServerCase;

describe.each(['Neovim', 'Vim'] as const)('lsp_rename under review on %s', (editor) => {
  let d: Driver;
  let seq = 0;
  const original = fixtureFiles(PYRIGHT.fixture);
  const linesOf = (file: string): string[] => (original[file] ?? '').replace(/\n$/, '').split('\n');
  const dispatcher = (rules: Rule[]): Dispatcher =>
    new Dispatcher({ get: (id) => (id === d.editor.id ? d.editor : undefined) }, testGuard({ rules: [...PERMISSION_CLASSES.map((klass) => ({ klass, decision: 'allow' as const })), ...rules], never_read: [] }).guard);
  const rename = async (through: Dispatcher): Promise<ToolOutcome | undefined> =>
    through.handle({
      id: `rename-${++seq}`,
      tool: 'lsp_rename',
      editor: d.editor.id,
      args: { buffer: PYRIGHT.rename.file, line: PYRIGHT.rename.line, col: PYRIGHT.rename.col, new_name: PYRIGHT.renameTo, apply: true, expected_changedtick: await d.tick(await d.bufnr(PYRIGHT.rename.file)) },
      scopes: [...ALL_SCOPES],
      client: 'claude-test',
      deadline_ms: 30_000,
    });
  const enter = (keys: string): Promise<void> => d.type(`${keys}${d.kind === 'nvim' ? '<CR>' : '\r'}`);
  /** Goes to the tab of the review of `file` (get_state says which is which) and decides it with `command`. */
  const decide = async (file: string, command: string): Promise<void> => {
    const reviews = (await d.ok('get_state')).reviews as { id: string; path: string | null }[];
    const review = reviews.find((r) => r.path?.endsWith(`/${file}`));
    if (!review) throw new Error(`no review of ${file}: ${JSON.stringify(reviews)}`);
    const tab = await d.expr<number>(`index(map(range(1, tabpagenr('$')), 'gettabvar(v:val, "vimrelay_review", "")'), ${JSON.stringify(review.id)}) + 1`);
    await enter(`:${tab}tabnext`);
    await enter(command);
    await waitFor(async () => ((await reviewStates(d)).some((r) => r.id === review.id) ? undefined : true), 10_000, `the review of ${file} to close`);
  };

  beforeAll(async () => {
    d = await lspDriver(editor === 'Neovim' ? 'nvim' : 'ale', PYRIGHT, { vimNormal: true });
  }, 90_000);
  afterAll(() => d?.stop());

  it('opens one review per file, applies the one the user accepts, leaves the one they reject, and says so per file', async () => {
    const [first, second] = PYRIGHT.renamed;
    if (!first || !second) throw new Error('the fixture renames in two files');
    const outcome = rename(dispatcher([{ klass: 'write', decision: 'review' }]));
    await waitFor(async () => {
      const states = await reviewStates(d);
      return states.length === 2 && states.every((r) => r.shown) ? true : undefined;
    }, 30_000, 'a review of each file');
    // Nothing changed yet.
    for (const file of PYRIGHT.renamed) expect(await d.lines(await d.bufnr(file))).toEqual(linesOf(file));
    await decide(second, ':VimRelayReject keep this file as it is');
    await decide(first, ':VimRelayAccept');
    const result = await outcome;
    expect(result).toMatchObject({
      ok: true,
      data: {
        applied: true,
        review: {
          decision: 'partly_accepted',
          files: expect.arrayContaining([
            { path: expect.stringMatching(new RegExp(`/${first}$`)), decision: 'accepted' },
            { path: expect.stringMatching(new RegExp(`/${second}$`)), decision: 'rejected', reason: 'keep this file as it is' },
          ]),
        },
      },
    });
    const accepted = await d.bufnr(first);
    expect((await d.lines(accepted)).join('\n')).toContain(PYRIGHT.renameTo);
    expect(await d.lines(await d.bufnr(second))).toEqual(linesOf(second));
    await d.undo(accepted);
    expect(await d.lines(accepted)).toEqual(linesOf(first));
  });

  it('reviews a rename the policy allows when its edit reaches a file whose path rule says review', async () => {
    const [, second] = PYRIGHT.renamed;
    const outcome = rename(dispatcher([{ klass: 'write', decision: 'review', path: `**/${second}` }]));
    await waitFor(async () => {
      const states = await reviewStates(d);
      return states.length === 2 && states.every((r) => r.shown) ? true : undefined;
    }, 30_000, 'a review of each file');
    for (const file of PYRIGHT.renamed) expect(await d.lines(await d.bufnr(file))).toEqual(linesOf(file));
    for (const file of PYRIGHT.renamed) await decide(file, ':VimRelayReject not now');
    expect(await outcome).toMatchObject({ ok: false, error: { code: 'REVIEW_REJECTED', review: { decision: 'rejected' } } });
    for (const file of PYRIGHT.renamed) expect(await d.lines(await d.bufnr(file))).toEqual(linesOf(file));
  });
});
