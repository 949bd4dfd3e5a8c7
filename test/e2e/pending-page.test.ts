// Deciding from the relay's Pending page, as a user away from the desk does: a real relay in local
// workerd, a `vimrelay agent` process, a real Neovim on a terminal (tmux) read as the user sees it,
// the v2 SDK client making the calls, and real headless Chromium at a phone's width (screenshots in
// test-artifacts/screenshots/). The page lists a prompt and a review waiting in the editor,
// whole; allowing the prompt there runs the call and closes the editor's prompt with a notice
// saying so; accepting the review applies it and closes its tab; the editor and the page answering
// at once, exactly one wins and the other is told; a replayed post, a forged one and an answer to
// what the editor decided already are refused, each saying why; `vimrelay ask-via editor` keeps
// the page from offering a prompt; a review still pending names the page in its result, and
// `vimrelay status` names it too. The time from a click on the page to the editor's prompt or
// review closing on the screen, and a post's answer, are measured and written to
// test-artifacts/pending-latency.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { NeovimClient } from 'neovim';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readAudit } from '../../agent/audit/log.ts';
import { paths } from '../../agent/config/paths.ts';
import { ROOT } from '../../scripts/local-relay.ts';
import { runCli, type AgentProcess } from '../helpers/agent-process.ts';
import { launchBrowser, layoutWidth, PHONE, type TestBrowser } from '../helpers/browser.ts';
import { callOk, connectMcp } from '../helpers/mcp.ts';
import { withOwnerSecret } from '../helpers/page-site.ts';
import { promptStates } from '../helpers/prompt-view.ts';
import { ownerBasic, withRelay, type TestRelay } from '../helpers/relay.ts';
import { startDesk } from '../helpers/desk.ts';
import type { TmuxScreen } from '../helpers/tmux.ts';
import { waitFor } from '../helpers/wait.ts';

let relay: TestRelay;
let env: NodeJS.ProcessEnv;
let agent: AgentProcess;
let nvim: TmuxScreen;
let direct: NeovimClient;
let client: Client;
let browser: TestBrowser;
let page: Page;
let editor: string;
let pendingUrl: string;
const latency: Record<string, number> = {};

/** A call in flight, its outcome as the client gets it (an error when the SDK throws). */
function calling(name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; structuredContent?: Record<string, unknown> } | Error> {
  return client.callTool({ name, arguments: { editor, ...args } }).then(
    (r) => r as { isError?: boolean; structuredContent?: Record<string, unknown> },
    (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
  );
}

/** Whether g:`name` is set in the Neovim. */
async function ran(name: string): Promise<boolean> {
  return (await direct.eval(`exists("g:${name}")`)) === 1;
}

/** The card of the one decision whose text holds `text`, on the page as it is now. */
function card(text: string) {
  return page.locator('article.decision', { hasText: text });
}

/** Reloads the page until it lists a decision holding `text`. */
async function listed(text: string): Promise<void> {
  await waitFor(async () => {
    await page.goto(pendingUrl);
    return (await card(text).count()) === 1 ? true : undefined;
  }, 20_000, `the page to list ${text}`);
}

/** The code the page gives for what came of the last answer. */
function outcome(): Promise<string | null> {
  return page.locator('[role=status]').getAttribute('data-outcome');
}

/** Waits until the prompt in the Neovim takes keys and they answer. */
async function promptArmed(): Promise<void> {
  await waitFor(async () => ((await promptStates({ kind: 'nvim', expr: (e: string) => direct.eval(e) as Promise<never> }))[0]?.armed ? true : undefined), 20_000, 'the prompt to take keys');
}

/** Clicks `button` and measures until the screen shows `notice` and no longer `gone`, as `what`. */
async function clickAndWatch(what: string, button: ReturnType<Page['locator']>, notice: string, gone: string): Promise<void> {
  const started = Date.now();
  const clicked = button.click();
  await nvim.until((rows) => rows.some((r) => r.includes(notice)) && !rows.some((r) => r.includes(gone)), `${what} to close with its notice`, 20_000);
  latency[what] = Date.now() - started;
  await clicked;
}

beforeAll(async () => {
  relay = await withRelay();
  ({ env, agent, nvim, direct } = await startDesk(relay));
  client = await connectMcp(relay.mcpUrl, await relay.mint({ kind: 'access', name: 'phone-claude' }), 'modern');
  editor = await waitFor(async () => ((await callOk(client, 'list_editors')).editors as { id: string; name: string }[]).find((e) => e.name === 'desk')?.id, 20_000, 'the editor');
  browser = await launchBrowser();
  page = await browser.newPage(PHONE);
  pendingUrl = `${relay.url}/dashboard/pending`;
  expect((await page.goto(withOwnerSecret(pendingUrl, relay.ownerSecret)))?.status()).toBe(200);
}, 150_000);

afterAll(async () => {
  mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
  writeFileSync(join(ROOT, 'test-artifacts', 'pending-latency.json'), JSON.stringify(latency, null, 2) + '\n');
  process.stdout.write(`pending page → editor (ms): ${JSON.stringify(latency)}\n`);
  await browser?.close();
  await client?.close();
  direct?.quit();
  await agent?.stop();
  await nvim?.stop();
  await relay?.stop();
});

let review: { id: string; dashboard: string } = { id: '', dashboard: '' };
let allowing: ReturnType<typeof calling>;

it('lists a review and a prompt waiting in the editor, whole, at 390 px; the review\'s pending result and `vimrelay status` name the page', async () => {
  const tick = (await callOk(client, 'read_buffer', { editor, buffer: 'a.txt' })).changedtick;
  const pending = await callOk(client, 'find_and_replace', { editor, buffer: 'a.txt', old_text: 'two', new_text: 'TWO', expected_changedtick: tick, review: true, timeout_ms: 100 });
  review = pending.review as typeof review;
  expect(pending.review).toMatchObject({ decision: 'pending', dashboard: expect.stringMatching(new RegExp(`^${pendingUrl}#d-`)) });
  await nvim.until((rows) => rows.some((r) => r.includes('vimrelay review:')), 'the review tab', 20_000);
  allowing = calling('run_command', { commands: 'let g:from_page = 1' });
  await nvim.until((rows) => rows.some((r) => r.includes(':let g:from_page = 1')), 'the prompt', 20_000);

  await listed('g:from_page');
  await listed('+TWO');
  const reviewCard = card('+TWO');
  expect(`${pendingUrl}#${await reviewCard.getAttribute('id')}`).toBe(review.dashboard);
  expect(await reviewCard.textContent()).toMatch(/phone-claude[\s\S]*proposes find_and_replace[\s\S]*-two[\s\S]*\+TWO/);
  expect(await reviewCard.locator('button').allTextContents()).toEqual(['Accept', 'Reject']);
  const promptCard = card('g:from_page');
  expect(await promptCard.textContent()).toMatch(/asks to run run_command \(exec\)[\s\S]*:let g:from_page = 1/);
  expect(await promptCard.locator('button').allTextContents()).toEqual(['Allow once', 'Deny']);
  expect(await page.locator('h3').allTextContents()).toEqual([expect.stringContaining(`desk ${editor}`)]);
  const { scrollWidth, innerWidth } = await layoutWidth(page);
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
  await browser.screenshot(page, 'pending-phone');

  const status = runCli(['status'], env);
  expect(status.stdout).toContain(`pending: 2 waiting; answer them in the editor or at ${pendingUrl}`);
});

it('allowing the prompt on the page runs the call, and the editor\'s prompt closes saying it was allowed there', async () => {
  await clickAndWatch('prompt', card('g:from_page').locator('button:has-text("Allow once")'), 'vimrelay: allowed on the dashboard', ':let g:from_page = 1');
  expect(await outcome()).toBe('allowed');
  expect(await page.locator('[role=status]').textContent()).toContain('Allowed once');
  const result = await allowing;
  expect(result).not.toBeInstanceOf(Error);
  expect(result).toMatchObject({ structuredContent: expect.any(Object) });
  expect((result as { isError?: boolean }).isError ?? false).toBe(false);
  expect(await ran('from_page')).toBe(true);
  const line = await waitFor(() => readAudit(paths(env).audit, 5).find((l) => l.tool === 'run_command'), 10_000, 'the call in the audit log');
  expect(line).toMatchObject({ decision: 'ask:allow_once', decided_by: 'dashboard', outcome: 'ok' });
  await browser.screenshot(page, 'pending-allowed');
});

it('accepting the review on the page applies it and closes its tab, saying so', async () => {
  await page.goto(pendingUrl);
  await clickAndWatch('review', card('+TWO').locator('button:has-text("Accept")'), 'vimrelay: accepted on the dashboard; applied', 'vimrelay review:');
  expect(await outcome()).toBe('accepted');
  expect(await direct.eval("tabpagenr('$')")).toBe(1);
  expect(await direct.buffer.lines).toEqual(['one', 'TWO', 'three']);
  expect(await callOk(client, 'review_status', { editor, id: review.id })).toMatchObject({ tool: 'find_and_replace', review: { id: review.id, decision: 'accepted' } });
  const line = await waitFor(() => readAudit(paths(env).audit, 10).find((l) => l.tool === 'find_and_replace' && l.decision === 'review:accepted'), 10_000, 'the decision in the audit log');
  expect(line).toMatchObject({ decided_by: 'dashboard' });
  expect(await page.locator('article.decision').count()).toBe(0);
});

it('the editor and the page answering at once: exactly one wins, and the other is told', async () => {
  const raced = calling('run_command', { commands: 'let g:raced = 1' });
  await listed('g:raced');
  await promptArmed();
  // The editor allows (Ctrl-G), the page denies: what ran says which won.
  const deny = card('g:raced').locator('button:has-text("Deny")');
  await Promise.all([deny.click(), Promise.resolve().then(() => nvim.key('C-g'))]);
  const said = await outcome();
  const result = await raced;
  if (said === 'denied') {
    expect((result as { isError?: boolean }).isError).toBe(true);
    expect(await ran('raced')).toBe(false);
    await nvim.until((rows) => rows.some((r) => r.includes('vimrelay: denied on the dashboard')), 'the editor told', 10_000);
  } else {
    expect(said).toBe('ALREADY_DECIDED');
    expect(await page.locator('[role=status]').textContent()).toContain('Already decided in the editor');
    expect((result as { isError?: boolean }).isError ?? false).toBe(false);
    expect(await ran('raced')).toBe(true);
  }
  await browser.screenshot(page, 'pending-race');
});

/** The fields of the form of the decision holding `text`, as the page made it for the owner. */
async function formFor(text: string): Promise<Record<string, string>> {
  const res = await fetch(pendingUrl, { headers: { Authorization: ownerBasic(relay.ownerSecret) } });
  const body = await res.text();
  const article = [...body.matchAll(/<article class="decision"[\s\S]*?<\/article>/g)].map((m) => m[0]).find((a) => a.includes(text));
  if (!article) throw new Error(`no decision holding ${text}`);
  const field = (name: string): string => new RegExp(`name="${name}" value="([^"]*)"`).exec(article)?.[1] ?? '';
  return { csrf: field('csrf'), device: field('device'), decision: field('decision'), nonce: field('nonce') };
}

/** POSTs an answer as the page's form does; its status and outcome code. */
async function post(fields: Record<string, string>): Promise<{ status: number; outcome: string | undefined }> {
  const res = await fetch(pendingUrl, { method: 'POST', headers: { Authorization: ownerBasic(relay.ownerSecret) }, body: new URLSearchParams(fields) });
  return { status: res.status, outcome: /data-outcome="([^"]+)"/.exec(await res.text())?.[1] };
}

it('refuses a replayed post, a forged one, and an answer to what the editor decided already, each saying why', async () => {
  const replayed = calling('run_command', { commands: 'let g:replayed = 1' });
  await listed('g:replayed');
  const fields = { ...(await formFor('g:replayed')), answer: 'allow' };
  const posted = Date.now();
  expect(await post(fields)).toEqual({ status: 200, outcome: 'allowed' });
  // A post's whole trip: relay, Hub, agent settling it, the page made again, back.
  latency.post = Date.now() - posted;
  expect(await post(fields)).toEqual({ status: 409, outcome: 'REPLAYED' });
  expect((await replayed) as { isError?: boolean }).not.toMatchObject({ isError: true });

  const decidedHere = calling('run_command', { commands: 'let g:decided_here = 1' });
  await listed('g:decided_here');
  const form = await formFor('g:decided_here');
  const { csrf: _csrf, ...noCsrf } = form;
  expect((await post({ ...noCsrf, answer: 'allow' })).status).toBe(403);
  expect(await post({ ...form, decision: 'made-up-decision-000000', answer: 'allow' })).toEqual({ status: 403, outcome: 'FORGED' });
  await promptArmed();
  nvim.type('d');
  expect(((await decidedHere) as { isError?: boolean }).isError).toBe(true);
  expect(await ran('decided_here')).toBe(false);
  // The genuine form, after the editor denied: the agent says who decided.
  const late = await fetch(pendingUrl, { method: 'POST', headers: { Authorization: ownerBasic(relay.ownerSecret) }, body: new URLSearchParams({ ...form, answer: 'allow' }) });
  expect(late.status).toBe(409);
  const text = await late.text();
  expect(text).toContain('data-outcome="ALREADY_DECIDED"');
  expect(text).toContain('Already decided in the editor');
  expect(await ran('decided_here')).toBe(false);
});

it('`vimrelay ask-via editor` keeps the page from offering a prompt; the editor still asks', async () => {
  const set = runCli(['ask-via', 'editor'], env);
  expect(set.stdout).toContain('ask_via: editor');
  try {
    const asked = calling('run_command', { commands: 'let g:editor_only = 1' });
    await nvim.until((rows) => rows.some((r) => r.includes(':let g:editor_only = 1')), 'the prompt', 20_000);
    await page.goto(pendingUrl);
    expect(await page.locator('article.decision').count()).toBe(0);
    expect(await page.locator('main').textContent()).toContain('Nothing waits for you.');
    await promptArmed();
    nvim.type('d');
    expect(((await asked) as { isError?: boolean }).isError).toBe(true);
    expect(await ran('editor_only')).toBe(false);
  } finally {
    runCli(['ask-via', 'all'], env);
  }
});
