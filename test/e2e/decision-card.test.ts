// Deciding in the assistant, as a user chatting on a phone does: a real relay in local workerd, a
// `vimrelay agent` process, a real Neovim on a terminal (tmux) read as the user sees it, v2 SDK
// clients (one declaring MCP Apps as a host does, one that does not, as a model-facing client), and
// the decision card rendered in headless Chromium by the official host side of ext-apps
// (helpers/app-host.ts: AppBridge with PostMessageTransport), at 390 and 1280 px, light and dark
// (screenshots card-*.png in test-artifacts/screenshots/). The card is listed only to the client
// that declared the extension; a call whose prompt waits answers DECISION_PENDING at once with the
// card's secret in `_meta`, never in the text; a click in the card allows the command and the
// editor's prompt closes saying so; review_status gives the call's result; a review is accepted
// from the card; the editor and the card answering at once, exactly one wins; and every answer
// that is not the card's own is refused with its code: a model-facing client's, a forged or
// replayed secret, another decision's, one already settled, one for another device (a second
// device's agent) and one for another account (the local `vimrelay serve --http`). The time from
// a click in the card to the editor's prompt closing on the screen is written to
// test-artifacts/card-latency.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { NeovimClient } from 'neovim';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readAudit } from '../../agent/audit/log.ts';
import { paths } from '../../agent/config/paths.ts';
import { writePolicy } from '../../agent/policy/file.ts';
import { CARD_META_KEY, CARD_MIME, CARD_URI, UI_EXTENSION, type CardMeta } from '../../protocol/index.ts';
import { ROOT } from '../../scripts/local-relay.ts';
import { CLI, isolatedEnv, runCli, startAgentProcess, type AgentProcess } from '../helpers/agent-process.ts';
import { hostCard } from '../helpers/app-host.ts';
import { launchBrowser, PHONE, type TestBrowser } from '../helpers/browser.ts';
import { callOk, MODERN_VERSION } from '../helpers/mcp.ts';
import { promptStates } from '../helpers/prompt-view.ts';
import { withRelay, type TestRelay } from '../helpers/relay.ts';
import { startServeHttp, type ServeHttpProcess } from '../helpers/serve-process.ts';
import { DESK_RULES, startDesk } from '../helpers/desk.ts';
import { startTmux, type TmuxScreen } from '../helpers/tmux.ts';
import { waitFor } from '../helpers/wait.ts';

type Result = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Record<string, unknown>; _meta?: Record<string, unknown> };

let relay: TestRelay;
let env: NodeJS.ProcessEnv;
let agent: AgentProcess;
let laptop: AgentProcess;
let serve: ServeHttpProcess;
let nvim: TmuxScreen;
let direct: NeovimClient;
let apps: Client;
let model: Client;
/** A client of the local server that declares MCP Apps, and that server's Neovim. */
let local: Client;
let localNvim: TmuxScreen;

let browser: TestBrowser;
let editor: string;
let laptopEditor: string;
let html: string;
const latency: Record<string, number> = {};
const stops: (() => unknown)[] = [];

/** A v2 SDK client; `ui`: it declares MCP Apps, as a host that renders them does; `legacy`: it opens with `initialize` (2025-11-25). */
function sdkClient(ui: boolean, legacy = false): Client {
  return new Client(
    { name: ui ? 'apps-host' : 'model-client', version: '0.0.0' },
    { ...(legacy ? {} : { versionNegotiation: { mode: { pin: MODERN_VERSION } } }), capabilities: ui ? { extensions: { [UI_EXTENSION]: { mimeTypes: [CARD_MIME] } } } : {} },
  );
}

/** Such a client over Streamable HTTP, in the current revision unless `legacy`. */
async function client(mcpUrl: string, token: string, ui: boolean, legacy = false): Promise<Client> {
  const c = sdkClient(ui, legacy);
  await c.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return c;
}

/** Whether `c`'s tools/list offers the app-only tool. */
async function listsDecide(c: Client): Promise<boolean> {
  return (await c.listTools()).tools.some((t) => t.name === 'decide');
}

function call(c: Client, name: string, args: Record<string, unknown>): Promise<Result> {
  return c.callTool({ name, arguments: args }) as Promise<Result>;
}

/** The error a tool result carries. */
function errorOf(result: Result): { code: string; refusal?: string; by?: string; decision?: { id: string } } {
  expect(result.isError).toBe(true);
  return (JSON.parse(result.content[0]?.text ?? '{}') as { error: { code: string } }).error;
}

/** The card's `_meta` in a result. */
function cardOf(result: Result): CardMeta {
  const meta = result._meta?.[CARD_META_KEY] as CardMeta | undefined;
  if (!meta) throw new Error(`no card in ${JSON.stringify(result)}`);
  return meta;
}

/** Whether g:`name` is set in the Neovim. */
async function ran(name: string): Promise<boolean> {
  return (await direct.eval(`exists("g:${name}")`)) === 1;
}

async function promptArmed(): Promise<void> {
  await waitFor(async () => ((await promptStates({ kind: 'nvim', expr: (e: string) => direct.eval(e) as Promise<never> }))[0]?.armed ? true : undefined), 20_000, 'the prompt to take keys');
}

/** Renders the card of `result` (the call of `tool` with `input`) in a new page of `size` and `theme`. */
async function render(input: Record<string, unknown>, result: Result, size: { width: number; height: number }, theme: 'light' | 'dark', via: Client = apps) {
  const page = await browser.newPage(size);
  const hosted = await hostCard(page, { html, theme, toolInput: input, toolResult: result, callTool: (params) => via.callTool({ name: params.name, arguments: params.arguments ?? {} }) });
  await hosted.frame.locator('#form').waitFor({ state: 'visible' });
  return { page, ...hosted };
}

beforeAll(async () => {
  relay = await withRelay();
  ({ env, agent, nvim, direct } = await startDesk(relay));

  // A second device of the account, with an editor of its own.
  const lapEnv = isolatedEnv({ VIMRELAY_OWNER_SECRET: relay.ownerSecret });
  const lapSockets = join(String(lapEnv.HOME), 'sockets');
  mkdirSync(lapSockets);
  writePolicy(paths(lapEnv).policy, { rules: DESK_RULES, never_read: [] });
  expect(runCli(['enroll', '--relay', relay.url, '--name', 'laptop'], lapEnv).status).toBe(0);
  const lapNvim = startTmux({ command: ['nvim', '--clean', '-n', '--listen', join(lapSockets, 'nvim.lap.0'), '-c', 'let g:vimrelay_name = "lap"'], env: lapEnv, cwd: String(lapEnv.HOME) });
  stops.push(() => lapNvim.stop());
  laptop = startAgentProcess(['--relay', relay.url, '--discover-dir', lapSockets], lapEnv);
  await laptop.waitFor('connected to relay');

  // The same user's local server: another account than the relay's.
  const localEnv = isolatedEnv();
  const localSockets = join(String(localEnv.HOME), 'sockets');
  mkdirSync(localSockets);
  writePolicy(paths(localEnv).policy, { rules: DESK_RULES, never_read: [] });
  localNvim = startTmux({ command: ['nvim', '--clean', '-n', '--listen', join(localSockets, 'nvim.loc.0'), '-c', 'let g:vimrelay_name = "loc"'], env: localEnv, cwd: String(localEnv.HOME) });
  stops.push(() => localNvim.stop());
  serve = await startServeHttp(['--port', '0', '--discover-dir', localSockets], localEnv);
  local = await client(serve.mcpUrl, serve.token, true);

  const token = await relay.mint({ kind: 'access', name: 'phone-claude' });
  apps = await client(relay.mcpUrl, token, true);
  model = await client(relay.mcpUrl, token, false);
  const editors = async () => (await callOk(model, 'list_editors')).editors as { id: string; name: string }[];
  editor = await waitFor(async () => (await editors()).find((e) => e.name === 'desk')?.id, 20_000, 'the editor');
  laptopEditor = await waitFor(async () => (await editors()).find((e) => e.name === 'lap')?.id, 20_000, 'the laptop editor');
  const read = (await apps.readResource({ uri: CARD_URI })) as { contents: { mimeType: string; text: string }[] };
  html = read.contents[0]?.text ?? '';
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
  writeFileSync(join(ROOT, 'test-artifacts', 'card-latency.json'), JSON.stringify(latency, null, 2) + '\n');
  process.stdout.write(`card → editor (ms): ${JSON.stringify(latency)}\n`);
  await browser?.close();
  await apps?.close();
  await model?.close();
  await local?.close();
  direct?.quit();
  await agent?.stop();
  await laptop?.stop();
  await serve?.stop();
  await nvim?.stop();
  for (const stop of stops) await stop();
  await relay?.stop();
});

it('lists the card and its app-only tool only to a client that declared MCP Apps; a model-facing client calling it is refused', async () => {
  const listed = (await apps.listTools()).tools as { name: string; _meta?: { ui?: { resourceUri?: string; visibility?: string[] } } }[];
  expect(listed.find((t) => t.name === 'decide')?._meta?.ui?.visibility).toEqual(['app']);
  expect(listed.find((t) => t.name === 'run_command')?._meta?.ui?.resourceUri).toBe(CARD_URI);
  expect(listed.find((t) => t.name === 'find_and_replace')?._meta?.ui?.resourceUri).toBe(CARD_URI);
  expect(listed.find((t) => t.name === 'read_buffer')?._meta).toBeUndefined();
  const plain = (await model.listTools()).tools as { name: string; _meta?: unknown }[];
  expect(plain.map((t) => t.name)).not.toContain('decide');
  expect(plain.every((t) => t._meta === undefined)).toBe(true);

  const read = (await apps.readResource({ uri: CARD_URI })) as unknown as { contents: { mimeType: string; text: string; _meta: { ui: { csp: Record<string, string[]>; domain: string } } }[] };
  expect(read.contents[0]?.mimeType).toBe(CARD_MIME);
  expect(Object.values(read.contents[0]?._meta.ui.csp ?? { x: ['?'] }).flat()).toEqual([]);
  expect(read.contents[0]?._meta.ui.domain).toBeTruthy();
  expect(html).not.toMatch(/(src|href)=["']?https?:/);

  // The model's own client, with a genuine decision's id and secret: the tool is not there for it.
  const asked = call(apps, 'run_command', { editor, commands: 'let g:model_tried = 1' });
  const pending = await asked;
  const card = cardOf(pending);
  await expect(call(model, 'decide', { editor, decision: card.decision.id, token: card.token, answer: 'allow' })).rejects.toThrow(/Unknown tool: decide/);
  await promptArmed();
  nvim.type('d');
  await nvim.until((rows) => !rows.some((r) => r.includes(':let g:model_tried = 1')), 'the prompt to close', 10_000);
  expect(await ran('model_tried')).toBe(false);
});

it('in the 2025 era, offers the card where the client\'s `initialize` is seen (serve --stdio), not over stateless HTTP', async () => {
  const legacyHttp = await client(relay.mcpUrl, await relay.mint({ kind: 'access', name: 'legacy-host' }), true, true);
  try {
    expect(await listsDecide(legacyHttp)).toBe(false);
  } finally {
    await legacyHttp.close();
  }
  // Listing needs no editor: a server of its own, with none.
  const stdioEnv = isolatedEnv();
  const env = Object.fromEntries(Object.entries(stdioEnv).filter((e): e is [string, string] => e[1] !== undefined));
  for (const ui of [true, false]) {
    const stdio = sdkClient(ui, true);
    await stdio.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--stdio', '--discover-dir', String(stdioEnv.XDG_RUNTIME_DIR)], env, stderr: 'pipe' }));
    try {
      expect(await listsDecide(stdio)).toBe(ui);
    } finally {
      await stdio.close();
    }
  }
});

it('a prompt asked in the card: pending at once, the secret only in _meta; Allow once in the card runs it and the editor says so', async () => {
  const input = { editor, commands: 'let g:from_card = 1' };
  const pending = await call(apps, 'run_command', input);
  const error = errorOf(pending);
  expect(error.code).toBe('DECISION_PENDING');
  const card = cardOf(pending);
  expect(card.decision).toMatchObject({ id: error.decision?.id, kind: 'prompt', tool: 'run_command', offers: ['allow', 'deny'] });
  // The text the model reads holds the decision's id, never its secret.
  expect(JSON.stringify(pending.content)).not.toContain(card.token);
  await nvim.until((rows) => rows.some((r) => r.includes(':let g:from_card = 1')), 'the prompt in the editor', 20_000);

  const shots: [string, { width: number; height: number }, 'light' | 'dark'][] = [
    ['card-prompt-390-light', PHONE, 'light'],
    ['card-prompt-390-dark', PHONE, 'dark'],
    ['card-prompt-1280-light', { width: 1280, height: 900 }, 'light'],
  ];
  for (const [name, size, theme] of shots) {
    const shown = await render(input, pending, size, theme);
    expect(await shown.frame.locator('pre').textContent()).toBe(':let g:from_card = 1');
    expect(await shown.frame.locator('button:visible').allTextContents()).toEqual(['Allow once', 'Deny']);
    // The card itself, in its frame, fits the width without sideways scrolling.
    const inFrame = shown.page.frames().find((f) => f !== shown.page.mainFrame());
    const { scrollWidth, innerWidth } = (await inFrame?.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }))) ?? { scrollWidth: Infinity, innerWidth: 0 };
    expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
    await browser.screenshot(shown.page, name);
    expect(shown.requests).toEqual([]);
    await shown.page.close();
  }

  await promptArmed();
  const shown = await render(input, pending, { width: 1280, height: 900 }, 'dark');
  const started = Date.now();
  const clicked = shown.frame.locator('button:has-text("Allow once")').click();
  await nvim.until((rows) => rows.some((r) => r.includes('vimrelay: allowed in the assistant')) && !rows.some((r) => r.includes(':let g:from_card = 1')), 'the prompt to close with its notice', 20_000);
  latency.prompt = Date.now() - started;
  await clicked;
  await shown.frame.locator('#status', { hasText: 'Allowed.' }).waitFor();
  await browser.screenshot(shown.page, 'card-prompt-1280-dark-allowed');
  expect(shown.requests).toEqual([]);
  await shown.page.close();

  const outcome = await callOk(apps, 'review_status', { editor, id: card.decision.id, wait_ms: 10_000 });
  expect(outcome).toMatchObject({ tool: 'run_command' });
  expect(await ran('from_card')).toBe(true);
  const line = await waitFor(() => readAudit(paths(env).audit, 10).find((l) => l.tool === 'run_command' && l.outcome === 'ok'), 10_000, 'the call in the audit log');
  expect(line).toMatchObject({ decision: 'ask:allow_once', decided_by: 'assistant' });
});

it('a review in the card: the edit answers pending at once, and Accept applies it', async () => {
  const tick = (await callOk(apps, 'read_buffer', { editor, buffer: 'a.txt' })).changedtick;
  const input = { editor, buffer: 'a.txt', old_text: 'two', new_text: 'TWO', expected_changedtick: tick, review: true };
  const pending = (await call(apps, 'find_and_replace', input));
  expect(pending.structuredContent).toMatchObject({ review: { decision: 'pending' } });
  const card = cardOf(pending);
  expect(card.decision).toMatchObject({ kind: 'review', offers: ['accept', 'reject'] });
  await nvim.until((rows) => rows.some((r) => r.includes('vimrelay review:')), 'the review tab', 20_000);
  const shown = await render(input, pending, PHONE, 'dark');
  expect(await shown.frame.locator('pre').textContent()).toMatch(/-two\n\+TWO/);
  const inFrame = shown.page.frames().find((f) => f !== shown.page.mainFrame());
  expect(await inFrame?.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  await browser.screenshot(shown.page, 'card-review-390-dark');
  const started = Date.now();
  const clicked = shown.frame.locator('button:has-text("Accept")').click();
  await nvim.until((rows) => rows.some((r) => r.includes('vimrelay: accepted in the assistant; applied')), 'the review to close with its notice', 20_000);
  latency.review = Date.now() - started;
  await clicked;
  await shown.frame.locator('#status', { hasText: 'Accepted.' }).waitFor();
  await shown.page.close();
  expect(await direct.buffer.lines).toEqual(['one', 'TWO', 'three']);
  const id = (pending.structuredContent?.review as { id: string }).id;
  expect(await callOk(apps, 'review_status', { editor, id })).toMatchObject({ review: { decision: 'accepted' } });
});

it('the editor and the card answering at once: exactly one wins, and the other is told', async () => {
  const input = { editor, commands: 'let g:raced = 1' };
  const pending = await call(apps, 'run_command', input);
  const card = cardOf(pending);
  await promptArmed();
  const shown = await render(input, pending, PHONE, 'light');
  // The editor allows (Ctrl-G), the card denies: what ran says which won.
  await Promise.all([shown.frame.locator('button:has-text("Deny")').click(), Promise.resolve().then(() => nvim.key('C-g'))]);
  const status = shown.frame.locator('#status');
  await expect.poll(() => status.textContent(), { timeout: 10_000 }).toMatch(/^(Denied\.|Already decided in the editor\.)$/);
  const outcome = await call(apps, 'review_status', { editor, id: card.decision.id, wait_ms: 10_000 });
  if ((await status.textContent()) === 'Denied.') {
    expect(errorOf(outcome).code).toBe('PERMISSION_DENIED');
    expect(await ran('raced')).toBe(false);
    await nvim.until((rows) => rows.some((r) => r.includes('vimrelay: denied in the assistant')), 'the editor told', 10_000);
  } else {
    expect(outcome.isError ?? false).toBe(false);
    expect(await ran('raced')).toBe(true);
  }
  await browser.screenshot(shown.page, 'card-race');
  await shown.page.close();
});

it('refuses what is not the card\'s own answer, each with its code', async () => {
  const refusal = async (args: Record<string, unknown>, via: Client = apps) => errorOf(await call(via, 'decide', args));
  const first = cardOf(await call(apps, 'run_command', { editor, commands: 'let g:attacked = 1' }));
  const second = cardOf(await call(apps, 'run_command', { editor, commands: 'let g:second = 1' }));
  const base = { editor, decision: first.decision.id, answer: 'allow' };

  expect(await refusal({ ...base, token: 'made-up' })).toMatchObject({ code: 'DECISION_REFUSED', refusal: 'FORGED' });
  // This agent's names, a made-up MAC.
  const parts = first.token.split('.');
  expect(await refusal({ ...base, token: [...parts.slice(0, 4), 'A'.repeat(43)].join('.') })).toMatchObject({ refusal: 'FORGED' });
  // Another decision's genuine secret.
  expect(await refusal({ ...base, token: second.token })).toMatchObject({ refusal: 'FORGED' });
  // The secret taken to another device of the account (routed there by its editor).
  expect(await refusal({ ...base, editor: laptopEditor, token: first.token })).toMatchObject({ refusal: 'OTHER_DEVICE' });
  // And to another account: the same user's local server.
  expect(await refusal({ decision: first.decision.id, token: first.token, answer: 'allow' }, local)).toMatchObject({ refusal: 'OTHER_ACCOUNT' });
  expect(await ran('attacked')).toBe(false);

  // The genuine answer, once; again it is a replay.
  expect(await callOk(apps, 'decide', { ...base, token: first.token, answer: 'deny', reason: 'not now' })).toEqual({ decision: first.decision.id, said: 'denied' });
  expect(await refusal({ ...base, token: first.token })).toMatchObject({ refusal: 'REPLAYED' });
  expect(await ran('attacked')).toBe(false);

  // Settled in the editor first: the card's own secret hears who decided.
  await nvim.until((rows) => rows.some((r) => r.includes(':let g:second = 1')), 'the second prompt', 20_000);
  await promptArmed();
  nvim.type('d');
  await nvim.until((rows) => !rows.some((r) => r.includes(':let g:second = 1')), 'the prompt to close', 10_000);
  expect(await refusal({ ...base, decision: second.decision.id, token: second.token })).toMatchObject({ refusal: 'ALREADY_DECIDED', by: 'editor' });
  expect(await ran('second')).toBe(false);
  const line = await waitFor(() => readAudit(paths(env).audit, 20).find((l) => l.tool === 'run_command' && l.decision === 'ask:deny' && l.decided_by === 'assistant'), 10_000, 'the denial in the audit log');
  expect(line).toBeDefined();
});

it('honours ask_via: `editor` keeps the card away (the call waits for the editor), `assistant` keeps the editor out', async () => {
  expect(runCli(['ask-via', 'editor'], env).stdout).toContain('ask_via: editor');
  try {
    const waiting = call(apps, 'run_command', { editor, commands: 'let g:editor_only = 1' });
    await nvim.until((rows) => rows.some((r) => r.includes(':let g:editor_only = 1')), 'the prompt in the editor', 20_000);
    await promptArmed();
    nvim.type('d');
    const denied = await waiting;
    expect(errorOf(denied).code).toBe('PERMISSION_DENIED');
    expect(denied._meta?.[CARD_META_KEY]).toBeUndefined();

    expect(runCli(['ask-via', 'assistant'], env).stdout).toContain('ask_via: assistant');
    // A client that shows no card has nowhere to be asked: refused at once.
    expect(errorOf(await call(model, 'run_command', { editor, commands: 'let g:nowhere = 1' })).code).toBe('PERMISSION_DENIED');
    const input = { editor, commands: 'let g:card_only = 1' };
    const pending = await call(apps, 'run_command', input);
    const card = cardOf(pending);
    const shown = await render(input, pending, PHONE, 'light');
    // While the card is up, the editor shows no prompt of it.
    expect(await promptStates({ kind: 'nvim', expr: (e: string) => direct.eval(e) as Promise<never> })).toEqual([]);
    expect(nvim.screen().some((r) => r.includes('g:card_only'))).toBe(false);
    await shown.frame.locator('button:has-text("Allow once")').click();
    await shown.frame.locator('#status', { hasText: 'Allowed.' }).waitFor();
    await shown.page.close();
    expect(await callOk(apps, 'review_status', { editor, id: card.decision.id, wait_ms: 10_000 })).toMatchObject({ tool: 'run_command' });
    expect(await ran('card_only')).toBe(true);
  } finally {
    runCli(['ask-via', 'all'], env);
  }
});

it('works the same against `vimrelay serve --http`: the card denies with a reason, and the model reads it', async () => {
  const loc = await waitFor(async () => ((await callOk(local, 'list_editors')).editors as { id: string; name: string }[]).find((e) => e.name === 'loc')?.id, 20_000, 'the local editor');
  const input = { editor: loc, commands: 'let g:local = 1' };
  const pending = await call(local, 'run_command', input);
  expect(errorOf(pending).code).toBe('DECISION_PENDING');
  const card = cardOf(pending);
  await localNvim.until((rows) => rows.some((r) => r.includes(':let g:local = 1')), 'the prompt in the local editor', 20_000);
  const shown = await render(input, pending, PHONE, 'dark', local);
  await shown.frame.locator('#reason').fill('not on this machine');
  await shown.frame.locator('button:has-text("Deny")').click();
  await localNvim.until((rows) => rows.some((r) => r.includes('vimrelay: denied in the assistant')), 'the prompt to close with its notice', 20_000);
  await shown.frame.locator('#status', { hasText: 'Denied.' }).waitFor();
  await browser.screenshot(shown.page, 'card-local-390-dark-denied');
  await shown.page.close();
  const outcome = errorOf(await call(local, 'review_status', { editor: loc, id: card.decision.id, wait_ms: 10_000 }));
  expect(outcome).toMatchObject({ code: 'PERMISSION_DENIED', reason: 'not on this machine' });
});
