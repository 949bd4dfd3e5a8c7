// Every approval shows the whole of what it approves, on the real screen: Neovim and Vim each run
// in a terminal (tmux, 120x40), and a run_command under "ask" sends one long command with a
// harmless head and its payload at the end, too long for the prompt to show at once. The test
// reads the screen (capture-pane): the payload is not on it at first, o then does nothing (it
// says to scroll to the end first), the prompt's own keys scroll it into view, and only then does
// o run the command. A preview too long to show whole is not shown: the screen offers only deny,
// and o does nothing.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, PERMISSION_CLASSES, type ToolOutcome } from '../../../protocol/index.ts';
import { Dispatcher } from '../../../agent/calls/dispatcher.ts';
import type { Editor } from '../../../agent/editors/editor.ts';
import { NvimEditor } from '../../../agent/editors/nvim/editor.ts';
import { isolatedHome } from '../../helpers/home.ts';
import { testGuard } from '../../helpers/policy.ts';
import { insideBorders, squeezed, startTmux, type TmuxScreen } from '../../helpers/tmux.ts';
import { startVimAgent, vimArgs, type VimAgentFixture } from '../../helpers/vim.ts';
import { listeningOn, waitFor } from '../../helpers/wait.ts';

interface OnScreen {
  term: TmuxScreen;
  editor: Editor;
  /** A file the payload writes, in a directory of the test's. */
  marker: string;
  stop(): Promise<void>;
}

/** Neovim in tmux, listening on a socket the test attaches to. */
async function nvimOnScreen(): Promise<OnScreen> {
  const { home, env } = isolatedHome('vimrelay-screen-');
  const cwd = join(home, 'work');
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'a.txt'), 'the user\'s file\n');
  const socket = join(home, 'nvim.sock');
  const term = startTmux({ command: ['nvim', '--clean', '-n', '--listen', socket, 'a.txt'], env, cwd });
  await listeningOn(socket, 10_000, 'Neovim to listen');
  const editor = await NvimEditor.attach(socket, { signal: AbortSignal.timeout(10_000) });
  return { term, editor, marker: join(home, 'payload-ran'), stop: async () => (await editor.close(), await term.stop()) };
}

/** Vim in tmux, connected to a Vim listener of the test's. */
async function vimOnScreen(): Promise<OnScreen> {
  const agent: VimAgentFixture = await startVimAgent();
  const cwd = join(agent.home, 'work');
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'a.txt'), 'the user\'s file\n');
  const term = startTmux({ command: ['vim', ...vimArgs({ name: 'screen', normal: true, open: ['a.txt'] })], env: agent.env, cwd });
  const editor = await waitFor(() => agent.registry.list()[0], 10_000, 'Vim to connect');
  return { term, editor, marker: join(agent.home, 'payload-ran'), stop: async () => (await term.stop(), await agent.stop()) };
}

describe.each([
  ['Neovim', nvimOnScreen],
  ['Vim', vimOnScreen],
] as const)('the exec prompt on the screen of %s', (_kind, start) => {
  let on: OnScreen;
  let dispatcher: Dispatcher;
  let seq = 0;
  const run = (commands: string | string[]): Promise<ToolOutcome | undefined> =>
    dispatcher.handle({ id: `screen-${++seq}`, tool: 'run_command', editor: on.editor.id, args: { commands }, scopes: [...ALL_SCOPES], client: 'claude-test', deadline_ms: 30_000 });
  const showing = (text: string): Promise<string[]> =>
    waitFor(() => {
      const rows = on.term.screen();
      return squeezed(rows).includes(text.replace(/\s/g, '')) ? rows : undefined;
    }, 10_000, () => `the screen to show ${text}; it shows:\n${on.term.screen().join('\n')}`);

  beforeAll(async () => {
    on = await start();
    const rules = PERMISSION_CLASSES.map((klass) => ({ klass, decision: klass === 'exec' ? ('ask' as const) : ('allow' as const) }));
    dispatcher = new Dispatcher({ get: (id) => (id === on.editor.id ? on.editor : undefined) }, testGuard({ rules, never_read: [] }).guard);
    await showing('the user\'s file');
  });
  afterAll(() => on?.stop());

  it('shows the payload at the end of a long command before o runs it, scrolling with the prompt\'s own keys', async () => {
    const payload = `call writefile(['ran'], '${on.marker}')`;
    const command = `echo '${'all is well here, nothing to see. '.repeat(200)}' | ${payload}`;
    const outcome = run(command);
    let settled = false;
    void outcome.then(() => (settled = true));
    const first = await showing('asks to run run_command (exec)');
    const wanted = payload.replace(/\s/g, '');
    expect(insideBorders(first)).not.toContain(wanted);
    // o before the end was shown: refused, and it says why.
    on.term.key('o');
    await showing('scroll to the end of the prompt first');
    expect(settled).toBe(false);
    expect(existsSync(on.marker)).toBe(false);
    // The prompt's own keys scroll until the payload is on the screen.
    let rows = on.term.screen();
    for (let page = 0; page < 20 && !insideBorders(rows).includes(wanted); page++) {
      const before = rows.join('\n');
      on.term.key('C-d');
      rows = await waitFor(() => {
        const now = on.term.screen();
        return now.join('\n') !== before ? now : undefined;
      }, 10_000, () => `the prompt to scroll; the screen shows:\n${before}`);
    }
    expect(insideBorders(rows), rows.join('\n')).toContain(wanted);
    expect(existsSync(on.marker)).toBe(false);
    on.term.key('o');
    expect(await outcome).toMatchObject({ ok: true });
    expect(existsSync(on.marker)).toBe(true);
  });

  it('offers only deny for a preview too long to show whole, and o does nothing', async () => {
    const commands = Array.from({ length: 50 }, (_, i) => `let g:long${i} = '${'x'.repeat(2_500)}'`);
    const outcome = run(commands);
    const rows = await showing('it can only be denied');
    expect(rows.join('\n')).not.toMatch(/allow once|allow always/);
    expect(rows.join('\n')).toContain('[d] deny');
    on.term.key('o');
    on.term.key('a');
    on.term.key('d');
    expect(await outcome).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', message: expect.stringContaining('The user denied') } });
  });
});
