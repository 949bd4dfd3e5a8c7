// Deciding in the assistant by elicitation, as a user talking to a client that shows forms: the
// v2 SDK client with an `elicitation/create` handler (form mode declared) over `vimrelay serve
// --stdio` in the 2025 era (a server request beside the editor's prompt) and over `vimrelay serve
// --http` and `--stdio` in the 2026-07-28 era (input_required rounds), a real Neovim on a terminal
// (tmux) whose policy asks before exec and reviews writes, read on its screen as the user sees it.
// In each: the form shows the command, or the diff whole and escaped, and offers what the editor
// offers; allowing there runs the call and closes the editor's prompt saying so; a deny carries its
// reason; accepting a review applies it; the editor answering first withdraws the form (2025: the
// request is cancelled; 2026-07-28: its late answer is refused ALREADY_DECIDED, naming the editor);
// the editor and the form answering at once, exactly one wins; `vimrelay ask-via editor` asks no
// form. The audit log says `decided_by: assistant`. In the 2026-07-28 era over HTTP, a client in
// manual mode replays a requestState, forges one and echoes one with another command: each is
// refused with its own code, and nothing runs. The time from the form's answer to the editor's
// prompt closing on the screen is written to test-artifacts/elicitation-latency.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { attach, type NeovimClient } from 'neovim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAudit } from '../../agent/audit/log.ts';
import { paths } from '../../agent/config/paths.ts';
import { writePolicy } from '../../agent/policy/file.ts';
import { PERMISSION_CLASSES } from '../../protocol/index.ts';
import type { McpEra } from '../../protocol/mcp-server.ts';
import { ROOT } from '../../scripts/local-relay.ts';
import { CLI, isolatedEnv, runCli, startAgentProcess } from '../helpers/agent-process.ts';
import { callOk, MODERN_VERSION } from '../helpers/mcp.ts';
import { assertNoNodeWarnings } from '../helpers/node-warnings.ts';
import { promptStates } from '../helpers/prompt-view.ts';
import { withRelay } from '../helpers/relay.ts';
import { startServeHttp, type ServeHttpProcess } from '../helpers/serve-process.ts';
import { startTmux, type TmuxScreen } from '../helpers/tmux.ts';
import { waitFor } from '../helpers/wait.ts';

const TEXT = ['one', 'two', 'three'];

/** One form the server asked, and how the test (the user) answers it. */
interface Form {
  message: string;
  offers: string[];
  /** Aborted when the server withdrew it (2025 era: `notifications/cancelled`). */
  withdrawn: AbortSignal;
  answer(result: { action: 'accept'; content: Record<string, string> } | { action: 'decline' } | { action: 'cancel' }): void;
}

let env: NodeJS.ProcessEnv;
let sockets: string;
let nvim: TmuxScreen;
let direct: NeovimClient;
const latency: Record<string, number> = {};

beforeAll(async () => {
  env = isolatedEnv();
  sockets = join(String(env.HOME), 'sockets');
  mkdirSync(sockets);
  const rules = PERMISSION_CLASSES.map((klass) => ({ klass, decision: klass === 'exec' ? ('ask' as const) : klass === 'write' ? ('review' as const) : ('allow' as const) }));
  writePolicy(paths(env).policy, { rules, never_read: [] });
  const cwd = join(String(env.HOME), 'work');
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'a.txt'), `${TEXT.join('\n')}\n`);
  const socket = join(sockets, 'nvim.desk.0');
  nvim = startTmux({ command: ['nvim', '--clean', '-n', '--listen', socket, '-c', 'let g:vimrelay_name = "desk"', 'a.txt'], env, cwd });
  await waitFor(async () => (await import('node:fs')).existsSync(socket) || undefined, 20_000, 'the Neovim socket');
  // `as never`: the option is typed as winston's Logger; the client only calls these methods.
  direct = attach({ socket, options: { logger: { level: 'error', info() {}, warn() {}, error() {}, debug() {} } as never } });
}, 60_000);

afterAll(async () => {
  mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
  writeFileSync(join(ROOT, 'test-artifacts', 'elicitation-latency.json'), JSON.stringify(latency, null, 2) + '\n');
  process.stdout.write(`form answer → editor (ms): ${JSON.stringify(latency)}\n`);
  await direct?.close();
  await nvim?.stop();
});

/** A v2 SDK client that declares form elicitation and hands every form to the test, in order. */
function formClient(era: McpEra, manual = false): { client: Client; next(): Promise<Form>; asked(): number } {
  const info = { name: 'form-client', version: '1.0.0' };
  const capabilities = { elicitation: { form: {} } };
  const client =
    era === 'modern'
      ? new Client(info, { capabilities, versionNegotiation: { mode: { pin: MODERN_VERSION } }, ...(manual ? { inputRequired: { autoFulfill: false } } : {}) })
      : new Client(info, { capabilities });
  const forms: Form[] = [];
  const waiters: ((form: Form) => void)[] = [];
  let count = 0;
  client.setRequestHandler('elicitation/create', (request, ctx) => {
    count += 1;
    const params = request.params as unknown as { message: string; requestedSchema: { properties: { answer: { oneOf: { const: string }[] } } } };
    return new Promise((resolve) => {
      const form: Form = {
        message: params.message,
        offers: params.requestedSchema.properties.answer.oneOf.map((o) => o.const),
        withdrawn: ctx.mcpReq.signal,
        answer: (result) => resolve(result),
      };
      const waiter = waiters.shift();
      if (waiter) waiter(form);
      else forms.push(form);
    });
  });
  return {
    client,
    next: () => {
      const form = forms.shift();
      return form ? Promise.resolve(form) : new Promise<Form>((resolve) => waiters.push(resolve));
    },
    asked: () => count,
  };
}

/** A call in flight: its result as the client gets it. */
function calling(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
}

/** The error a result carries (code, message, hint and the rest), or null. */
function errorOf(result: CallToolResult): Record<string, unknown> | null {
  if (!result.isError) return null;
  const text = result.content[0]?.type === 'text' ? result.content[0].text : '{}';
  return (JSON.parse(text) as { error: Record<string, unknown> }).error;
}

/** Whether g:`name` is set in the Neovim. */
async function ran(name: string): Promise<boolean> {
  return (await direct.eval(`exists("g:${name}")`)) === 1;
}

/** Waits until the prompt in the Neovim takes keys and they answer. */
async function promptArmed(): Promise<void> {
  await waitFor(async () => ((await promptStates({ kind: 'nvim', expr: (e: string) => direct.eval(e) as Promise<never> }))[0]?.armed ? true : undefined), 20_000, 'the prompt to take keys');
}

/** Waits until the Neovim shows no prompt: the one it had was answered there (its answer went out before it closed). */
async function promptGone(): Promise<void> {
  // Object.keys: no prompt may come back as an empty list or an empty dictionary.
  await waitFor(async () => (Object.keys(await promptStates({ kind: 'nvim', expr: (e: string) => direct.eval(e) as Promise<never> })).length === 0 ? true : undefined), 20_000, 'the prompt to close');
}

/** The newest audit line for `tool` matching `decision`. */
function audited(tool: string, decision: RegExp): Promise<Record<string, unknown>> {
  return waitFor(() => readAudit(paths(env).audit, 20).reverse().find((l) => l.tool === tool && decision.test(String(l.decision))), 10_000, `${tool} in the audit log`);
}

interface Transport {
  name: string;
  era: McpEra;
  connect(client: Client): Promise<{ stop(): Promise<void>; http?: ServeHttpProcess }>;
}

const stdio = (era: McpEra): Transport => ({
  name: `serve --stdio, ${era === 'modern' ? '2026-07-28' : '2025'} era`,
  era,
  async connect(client) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--stdio', '--discover-dir', sockets],
      env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
      stderr: 'pipe',
    });
    let err = '';
    transport.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    await client.connect(transport);
    return {
      async stop() {
        await client.close();
        assertNoNodeWarnings(err, 'vimrelay serve --stdio');
      },
    };
  },
});

const http: Transport = {
  name: 'serve --http, 2026-07-28 era',
  era: 'modern',
  async connect(client) {
    const serve = await startServeHttp(['--port', '0', '--discover-dir', sockets], env);
    await client.connect(new StreamableHTTPClientTransport(new URL(serve.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${serve.token}` } } }));
    return {
      http: serve,
      async stop() {
        await client.close();
        await serve.stop();
      },
    };
  },
};

const relayed: Transport = {
  name: 'the relay, 2026-07-28 era',
  era: 'modern',
  async connect(client) {
    const relay = await withRelay();
    const enrolled = runCli(['enroll', '--relay', relay.url, '--name', 'desk-box'], { ...env, VIMRELAY_OWNER_SECRET: relay.ownerSecret });
    expect(enrolled.status, enrolled.stderr).toBe(0);
    const agent = startAgentProcess(['--relay', relay.url, '--discover-dir', sockets], env);
    await agent.waitFor('connected to relay');
    const token = await relay.mint({ kind: 'access', name: 'form-client' });
    await client.connect(new StreamableHTTPClientTransport(new URL(relay.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    return {
      async stop() {
        await client.close();
        await agent.stop();
        await relay.stop();
      },
    };
  },
};

for (const transport of [stdio('legacy'), http, stdio('modern'), relayed]) {
  describe(transport.name, () => {
    const tag = transport.name.replace(/\W+/g, '_');
    let user: ReturnType<typeof formClient>;
    let stop: () => Promise<void>;
    let editor: string;

    beforeAll(async () => {
      runCli(['ask-via', 'all'], env);
      user = formClient(transport.era);
      stop = (await transport.connect(user.client)).stop;
      editor = await waitFor(async () => ((await callOk(user.client, 'list_editors')).editors as { id: string; name: string }[]).find((e) => e.name === 'desk')?.id, 20_000, 'the editor');
    }, 60_000);

    afterAll(async () => {
      await stop?.();
      await direct.lua('vim.api.nvim_buf_set_lines(0, 0, -1, true, ...)', [TEXT]);
    });

    it('the form shows the command and offers allow once or deny; allowing there runs it, and the editor\'s prompt closes saying so', async () => {
      const name = `allowed_${tag}`;
      const call = calling(user.client, 'run_command', { editor, commands: `let g:${name} = 1` });
      const form = await user.next();
      expect(form.message).toContain(`:let g:${name} = 1`);
      expect(form.message).toMatch(/^vimrelay: form-client( \(personal access token\))? asks to run run_command \(exec\) in desk\./);
      expect(form.offers).toEqual(['allow', 'deny']);
      // The editor asks too, on the user's screen.
      await nvim.until((rows) => rows.some((r) => r.includes(`:let g:${name} = 1`)), 'the prompt', 20_000);
      const answered = Date.now();
      form.answer({ action: 'accept', content: { answer: 'allow' } });
      await nvim.until((rows) => rows.some((r) => r.includes('vimrelay: allowed in the assistant')) && !rows.some((r) => r.includes(`:let g:${name} = 1`)), 'the prompt to close with its notice', 20_000);
      latency[`prompt, ${transport.name}`] = Date.now() - answered;
      const result = await call;
      expect(errorOf(result)).toBeNull();
      expect(await ran(name)).toBe(true);
      expect(await audited('run_command', /^ask:allow_once$/)).toMatchObject({ decided_by: 'assistant', outcome: 'ok' });
    });

    it('a deny in the form carries its reason to the model, and nothing runs', async () => {
      const name = `denied_${tag}`;
      const call = calling(user.client, 'run_command', { editor, commands: `let g:${name} = 1` });
      const form = await user.next();
      form.answer({ action: 'accept', content: { answer: 'deny', reason: 'not on a Friday' } });
      const error = errorOf(await call);
      expect(error).toMatchObject({ code: 'PERMISSION_DENIED' });
      expect(JSON.stringify(error)).toContain('not on a Friday');
      expect(await ran(name)).toBe(false);
      await nvim.until((rows) => rows.some((r) => r.includes('vimrelay: denied in the assistant')), 'the notice', 10_000);
      expect(await audited('run_command', /^ask:deny/)).toMatchObject({ decided_by: 'assistant' });
    });

    it('a review: the form shows the diff whole and escaped; accepting there applies it and closes its tab', async () => {
      const call = calling(user.client, 'find_and_replace', { editor, buffer: 'a.txt', old_text: 'two', new_text: 'TWO\u200b' });
      const form = await user.next();
      expect(form.offers).toEqual(['accept', 'reject']);
      expect(form.message).toContain('-two');
      expect(form.message).toContain('+TWO⟨U+200B⟩');
      expect(form.message).not.toContain('\u200b');
      await nvim.until((rows) => rows.some((r) => r.includes('vimrelay review:') || r.includes('vimrelay: a review waits for you')), 'the review', 20_000);
      const answered = Date.now();
      form.answer({ action: 'accept', content: { answer: 'accept' } });
      await nvim.until((rows) => rows.some((r) => r.includes('vimrelay: accepted in the assistant')), 'the review to close with its notice', 20_000);
      latency[`review, ${transport.name}`] = Date.now() - answered;
      const result = await call;
      expect(errorOf(result)).toBeNull();
      expect(result.structuredContent).toMatchObject({ review: { decision: 'accepted' } });
      expect(await direct.eval("tabpagenr('$')")).toBe(1);
      expect(await direct.buffer.lines).toEqual(['one', 'TWO\u200b', 'three']);
      expect(await audited('find_and_replace', /^review:accepted$/)).toMatchObject({ decided_by: 'assistant' });
      await direct.lua('vim.api.nvim_buf_set_lines(0, 0, -1, true, ...)', [TEXT]);
    });

    it('the editor answering first withdraws the form, and the form\'s late answer runs nothing', async () => {
      const name = `editor_first_${tag}`;
      const call = calling(user.client, 'run_command', { editor, commands: `let g:${name} = 1` });
      const form = await user.next();
      await promptArmed();
      nvim.type('d');
      if (transport.era === 'legacy') {
        // The server cancels its request: the client's form closes.
        await waitFor(() => (form.withdrawn.aborted ? true : undefined), 10_000, 'the form withdrawn');
        expect(errorOf(await call)).toMatchObject({ code: 'PERMISSION_DENIED' });
      } else {
        // Rounds cannot take a form back: its answer comes after the editor's, and is refused naming the editor.
        await promptGone();
        form.answer({ action: 'accept', content: { answer: 'allow' } });
        expect(errorOf(await call)).toMatchObject({ code: 'ALREADY_DECIDED', by: 'editor', outcome: { error: { code: 'PERMISSION_DENIED' } } });
      }
      expect(await ran(name)).toBe(false);
      expect(await audited('run_command', /^ask:deny/)).toMatchObject({ decided_by: 'editor' });
    });

    it('the editor and the form answering at once: exactly one wins', async () => {
      const name = `raced_${tag}`;
      const call = calling(user.client, 'run_command', { editor, commands: `let g:${name} = 1` });
      const form = await user.next();
      await promptArmed();
      // The form allows, the editor denies: what ran says which won.
      form.answer({ action: 'accept', content: { answer: 'allow' } });
      nvim.type('d');
      const result = await call;
      const line = await audited('run_command', /^ask:/);
      if (await ran(name)) {
        expect(line).toMatchObject({ decision: 'ask:allow_once', decided_by: 'assistant' });
        expect(errorOf(result)).toBeNull();
        await nvim.until((rows) => rows.some((r) => r.includes('vimrelay: allowed in the assistant')), 'the editor told', 10_000);
        // The prompt was gone when `d` came: it began an operator in the user's buffer, which Esc ends.
        nvim.key('Escape');
      } else {
        expect(line).toMatchObject({ decided_by: 'editor' });
        expect(errorOf(result)).toMatchObject({ code: transport.era === 'legacy' ? 'PERMISSION_DENIED' : 'ALREADY_DECIDED' });
      }
    });

    it('`vimrelay ask-via editor` asks no form; the editor still asks', async () => {
      await waitFor(async () => ((await direct.mode).mode === 'n' ? true : undefined), 10_000, 'Normal mode');
      expect(runCli(['ask-via', 'editor'], env).status).toBe(0);
      const before = user.asked();
      const name = `editor_only_${tag}`;
      const call = calling(user.client, 'run_command', { editor, commands: `let g:${name} = 1` });
      await promptArmed();
      nvim.key('C-g');
      expect(errorOf(await call)).toBeNull();
      expect(await ran(name)).toBe(true);
      expect(user.asked()).toBe(before);
      expect(await audited('run_command', /^ask:allow_once$/)).toMatchObject({ decided_by: 'editor' });
      expect(runCli(['ask-via', 'all'], env).status).toBe(0);
    });
  });
}

for (const transport of [http, relayed]) describe(`attacks on the requestState (${transport.name}, a client in manual mode)`, () => {
  let attacker: Client;
  let stop: () => Promise<void>;
  let editor: string;
  type Round = { resultType?: string; requestState?: string; inputRequests?: Record<string, unknown> } & Partial<CallToolResult>;
  const round = (args: Record<string, unknown>, retry: { requestState: string; inputResponses: Record<string, unknown> } | null = null): Promise<Round> =>
    // `request`, not callTool, which would hold an input_required result to the tool's outputSchema.
    attacker.request({ method: 'tools/call', params: { name: 'run_command', arguments: args, ...(retry ?? {}) } }, { allowInputRequired: true }) as Promise<Round>;
  const allow = { decision: { action: 'accept', content: { answer: 'allow' } } };

  beforeAll(async () => {
    runCli(['ask-via', 'all'], env);
    attacker = formClient('modern', true).client;
    stop = (await transport.connect(attacker)).stop;
    editor = await waitFor(async () => ((await callOk(attacker, 'list_editors')).editors as { id: string; name: string }[]).find((e) => e.name === 'desk')?.id, 20_000, 'the editor');
  }, 60_000);

  afterAll(() => stop?.());

  it('a requestState used twice is refused (REPLAYED); the first use ran the call once', async () => {
    const counter = `replayed_${transport.name.replace(/\W+/g, '_')}`;
    const args = { editor, commands: `let g:${counter} = get(g:, "${counter}", 0) + 1` };
    const first = await round(args);
    expect(first.resultType).toBe('input_required');
    expect(Object.keys(first.inputRequests ?? {})).toEqual(['decision']);
    const retry = { requestState: String(first.requestState), inputResponses: allow };
    const done = await round(args, retry);
    expect(done.isError ?? false).toBe(false);
    const again = await round(args, retry);
    expect(errorOf(again as CallToolResult)).toMatchObject({ code: 'REPLAYED' });
    expect(await direct.eval(`g:${counter}`)).toBe(1);
  });

  it('a forged requestState (changed, made up) and a genuine one echoed with another command are refused (FORGED); nothing runs', async () => {
    const args = { editor, commands: 'let g:forged_target = 1' };
    const first = await round(args);
    const state = String(first.requestState);
    const [v, body, mac] = state.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
    const changed = `${v}.${Buffer.from(JSON.stringify({ ...payload, expires: 9e15 })).toString('base64url')}.${mac}`;
    for (const forged of [changed, 'v1.bWFkZQ.dXA']) {
      expect(errorOf((await round(args, { requestState: forged, inputResponses: allow })) as CallToolResult), forged).toMatchObject({ code: 'FORGED' });
    }
    const other = { editor, commands: 'let g:smuggled = 1' };
    expect(errorOf((await round(other, { requestState: state, inputResponses: allow })) as CallToolResult)).toMatchObject({ code: 'FORGED' });
    expect(await ran('smuggled')).toBe(false);
    expect(await ran('forged_target')).toBe(false);
    // The prompt still waits in the editor, which denies it.
    const denials = (): number => readAudit(paths(env).audit, 50).filter((l) => String(l.decision).startsWith('ask:deny') && l.decided_by === 'editor').length;
    const before = denials();
    await promptArmed();
    nvim.type('d');
    await waitFor(() => (denials() > before ? true : undefined), 20_000, 'the editor\'s deny');
    expect(await ran('forged_target')).toBe(false);
  });
});
