// lsp_code_actions and lsp_format applied under review (README "Reviews"), with
// typescript-language-server on a real Neovim and a real Vim with ALE: the model's `review: true`
// on Organize Imports opens its edit as a review and changes nothing until the user accepts it,
// then makes it as one undo step; a policy that says `review` for writes reviews a formatting, and
// the user's rejection changes nothing. A code action that runs a server command cannot be
// reviewed: the call is refused before it runs (records.test.ts checks the argument), and the
// class of such an apply is exec, which a policy never reviews.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, PERMISSION_CLASSES, type ToolOutcome } from '../../../protocol/index.ts';
import { Dispatcher } from '../../../agent/calls/dispatcher.ts';
import type { Rule } from '../../../agent/policy/types.ts';
import { waitFor, type Driver } from '../../helpers/editors.ts';
import { lspDriver } from '../../helpers/lsp.ts';
import { ACTIONS_TS, linesOf, TSLS, type Action } from '../../helpers/lsp-actions.ts';
import { testGuard } from '../../helpers/policy.ts';
import { reviewStates } from '../../helpers/review-view.ts';

describe.each(['Neovim', 'Vim'] as const)('lsp_code_actions and lsp_format under review on %s', (editor) => {
  let d: Driver;
  let buf = 0;
  let seq = 0;
  const file = 'src/actions.ts';
  const original = linesOf(ACTIONS_TS);
  const through = (rules: Rule[]) => async (tool: string, args: Record<string, unknown>): Promise<ToolOutcome | undefined> =>
    new Dispatcher({ get: (id) => (id === d.editor.id ? d.editor : undefined) }, testGuard({ rules: [...PERMISSION_CLASSES.map((klass) => ({ klass, decision: 'allow' as const })), ...rules], never_read: [] }).guard).handle({
      id: `review-${++seq}`,
      tool,
      editor: d.editor.id,
      args,
      scopes: [...ALL_SCOPES],
      client: 'claude-test',
      deadline_ms: 30_000,
    });
  const enter = (keys: string): Promise<void> => d.type(`${keys}${d.kind === 'nvim' ? '<CR>' : '\r'}`);
  /** Waits for the one review to be shown, then decides it with `command` in its tab. */
  const decide = async (command: string): Promise<void> => {
    await waitFor(async () => {
      const states = await reviewStates(d);
      return states.length === 1 && states[0]?.shown ? true : undefined;
    }, 30_000, 'the review');
    // Nothing changed yet.
    expect(await d.lines(buf)).toEqual(original);
    await enter(command);
    await waitFor(async () => ((await reviewStates(d)).length === 0 ? true : undefined), 10_000, 'the review to close');
  };

  beforeAll(async () => {
    d = await lspDriver(editor === 'Neovim' ? 'nvim' : 'ale', { ...TSLS, open: [file] }, { files: { [file]: ACTIONS_TS }, vimNormal: true });
    buf = await d.bufnr(file);
  }, 90_000);
  afterAll(() => d?.stop());

  it('reviews a code action the model asks to be reviewed, and makes it once the user accepts it', async () => {
    const organize = { buffer: file, line: 1, col: 1, kinds: ['source.organizeImports'] };
    const id = ((await d.ok('lsp_code_actions', organize)).actions as Action[]).find((a) => a.title === 'Organize Imports')?.id;
    const outcome = through([])('lsp_code_actions', { ...organize, id, apply: true, expected_changedtick: await d.tick(buf), review: true });
    await decide(':VimRelayAccept');
    const result = await outcome;
    expect(result).toMatchObject({ ok: true, data: { applied: true, review: { decision: 'accepted' }, files: [{ buf, changedtick: await d.tick(buf) }] } });
    // Its own fields only: no buffer fields of the tools that edit one buffer.
    expect(Object.keys(result?.ok ? result.data : {}).sort()).toEqual(['actions', 'applied', 'edit_count', 'files', 'review', 'server', 'truncated', 'withheld']);
    expect((await d.lines(buf))[0]).toBe("import { Circle, totalArea } from './geometry';");
    await d.undo(buf);
    expect(await d.lines(buf)).toEqual(original);
  });

  it('reviews a formatting when the policy says review for writes; rejected, nothing changes', async () => {
    await d.command(`call setbufvar(${buf}, '&shiftwidth', 2) | call setbufvar(${buf}, '&expandtab', 1)`);
    const outcome = through([{ klass: 'write', decision: 'review' }])('lsp_format', { buffer: file, apply: true, expected_changedtick: await d.tick(buf) });
    await decide(':VimRelayReject not this indent');
    expect(await outcome).toMatchObject({ ok: false, error: { code: 'REVIEW_REJECTED', review: { decision: 'rejected' } } });
    expect(await d.lines(buf)).toEqual(original);
  });
});
