// An editor that dies, or a Vim whose channel closes, while a call waits on it: the call answers
// EDITOR_OFFLINE, never PERMISSION_DENIED (no policy refused anything), whichever step it waited in:
// the policy asking the editor which files the call addresses (Editor.paths, the editor busy), the
// permission prompt, or the tool itself. The audit log says what happened: decision `offline` when
// the policy could not decide, `allow` with outcome EDITOR_OFFLINE when the tool had started.
// Real Neovim and Vim processes, killed with SIGKILL as a crash would.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_SCOPES, PERMISSION_CLASSES, type ToolOutcome } from '../../../protocol/index.ts';
import { readAudit } from '../../../agent/audit/log.ts';
import { Dispatcher } from '../../../agent/calls/dispatcher.ts';
import type { Editor } from '../../../agent/editors/editor.ts';
import { NvimEditor } from '../../../agent/editors/nvim/editor.ts';
import { startNvim } from '../../helpers/nvim.ts';
import { testGuard } from '../../helpers/policy.ts';
import { shown } from '../../helpers/prompt-view.ts';
import { startVimAgent } from '../../helpers/vim.ts';
import { waitFor } from '../../helpers/wait.ts';
import type { Driver } from '../../helpers/editors.ts';

/** A live editor, a way to keep it busy (it answers nothing until it is done), and a way to kill it. */
interface Victim {
  editor: Editor;
  /** Makes the editor busy for `ms` (requests wait until then); resolves once it is. */
  busy(ms: number): Promise<void>;
  /** Evaluates an expression, for looking at the prompt. */
  expr<T>(expr: string): Promise<T>;
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** Resolves once the file `marker` exists: the editor wrote it as it became busy. */
const busyAt = (marker: string): Promise<true> => waitFor(() => (existsSync(marker) ? true : undefined), 10_000, 'the editor to be busy');

async function neovim(): Promise<Victim> {
  const nvim = await startNvim({ files: { 'a.txt': 'alpha\n' }, open: ['a.txt'] });
  const editor = await NvimEditor.attach(nvim.socket, { signal: AbortSignal.timeout(10_000) });
  return {
    editor,
    busy: (ms) => nvim.busy(ms),
    expr: (expr) => nvim.client.eval(expr) as Promise<never>,
    kill: () => nvim.kill(),
    stop: async () => {
      await editor.close();
      await nvim.stop();
    },
  };
}

async function vim(): Promise<Victim> {
  const agent = await startVimAgent();
  const fixture = await agent.vim({ files: { 'a.txt': 'alpha\n' }, open: ['a.txt'] });
  const editor = await agent.editorOf(fixture);
  const marker = join(agent.home, 'busy');
  return {
    editor,
    busy: async (ms) => {
      // A loop, not system(): a shell would inherit the channel's socket and keep it open past Vim.
      const loop = `call writefile(['busy'], '${marker}') | let t = reltime() | while reltimefloat(reltime(t)) < ${ms / 1000} | endwhile`;
      editor.evaluate(`execute(${JSON.stringify(loop)})`, AbortSignal.timeout(ms + 10_000)).catch(() => undefined);
      await busyAt(marker);
    },
    expr: (expr) => editor.evaluate(expr, AbortSignal.timeout(10_000)) as Promise<never>,
    kill: () => fixture.kill(),
    stop: () => agent.stop(),
  };
}

describe.each([
  ['Neovim', neovim],
  ['Vim', vim],
] as const)('an editor that goes away during a call, on %s', (_kind, start) => {
  let victim: Victim | undefined;
  afterEach(async () => {
    await victim?.stop();
    victim = undefined;
  });

  /** A dispatcher over the victim, `exec` on ask unless `allowExec` (the rest allowed), with its audit file. */
  function dispatcherFor(v: Victim, allowExec = false): { call: (args: Record<string, unknown>) => Promise<ToolOutcome | undefined>; auditFile: string } {
    const rules = PERMISSION_CLASSES.map((klass) => ({ klass, decision: klass === 'exec' && !allowExec ? ('ask' as const) : ('allow' as const) }));
    const { guard, auditFile } = testGuard({ rules, never_read: [] });
    const dispatcher = new Dispatcher({ get: (id) => (id === v.editor.id ? v.editor : undefined) }, guard);
    let seq = 0;
    const call = (args: Record<string, unknown>) =>
      dispatcher.handle({ id: `gone-${++seq}`, tool: 'commands' in args ? 'run_command' : 'read_buffer', editor: v.editor.id, args, scopes: [...ALL_SCOPES], client: 'test', deadline_ms: 30_000 });
    return { call, auditFile };
  }

  it('while the policy asks it which files the call addresses: EDITOR_OFFLINE, audited `offline`', async () => {
    victim = await start();
    const { call, auditFile } = dispatcherFor(victim);
    await victim.busy(10_000);
    const outcome = call({});
    await victim.kill();
    expect(await outcome).toMatchObject({ ok: false, error: { code: 'EDITOR_OFFLINE' } });
    expect(readAudit(auditFile, 1)[0]).toMatchObject({ tool: 'read_buffer', decision: 'offline', outcome: 'EDITOR_OFFLINE' });
  });

  it('while its permission prompt is up: EDITOR_OFFLINE, audited `offline`, not a denial', async () => {
    const v = (victim = await start());
    const { call, auditFile } = dispatcherFor(v);
    const outcome = call({ commands: 'let g:asked = 1' });
    await waitFor(async () => ((await shown({ kind: v.editor.kind, expr: v.expr } as Driver))?.some((l) => l.includes(':let g:asked = 1')) ? true : undefined), 10_000, 'the prompt');
    await v.kill();
    const result = await outcome;
    expect(result).toMatchObject({ ok: false, error: { code: 'EDITOR_OFFLINE' } });
    expect(result?.ok === false && result.error.hint).not.toMatch(/policy|allow/);
    expect(readAudit(auditFile, 1)[0]).toMatchObject({ tool: 'run_command', decision: 'offline', outcome: 'EDITOR_OFFLINE' });
  });

  it('while the tool runs: EDITOR_OFFLINE, audited as allowed', async () => {
    const v = (victim = await start());
    const { call, auditFile } = dispatcherFor(v, true);
    const outcome = call({ commands: ['let g:sleeping = 1', 'sleep 20'], timeout_ms: 25_000 });
    // Both editors serve requests during :sleep.
    await waitFor(async () => ((await v.expr<number>('exists("g:sleeping")')) === 1 ? true : undefined), 10_000, 'the command to run');
    await v.kill();
    expect(await outcome).toMatchObject({ ok: false, error: { code: 'EDITOR_OFFLINE' } });
    expect(readAudit(auditFile, 1)[0]).toMatchObject({ tool: 'run_command', decision: 'allow', outcome: 'EDITOR_OFFLINE' });
  });
});
