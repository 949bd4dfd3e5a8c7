/**
 * `startPageSite()`: what a file of page tests runs against, a real relay (withRelay) and real
 * headless Chromium (launchBrowser) with one desktop tab; `stopPageSite()` closes the browser and
 * stops the relay, whichever of them started. Call the first in `beforeAll` with
 * PAGE_SITE_START_MS, the second in `afterAll`.
 */
import type { Page } from 'playwright-core';
import { launchBrowser, type TestBrowser } from './browser.ts';
import { withRelay, type TestRelay } from './relay.ts';

export interface PageSite {
  relay: TestRelay;
  browser: TestBrowser;
  page: Page;
}

/** The start hook's bound: longer than withRelay's own start deadline, so that a relay that never comes up is stopped by withRelay rather than abandoned by an expired hook. */
export const PAGE_SITE_START_MS = 150_000;

/**
 * `url` with `secret` as its password (any user name): a browser given it answers the local
 * relay's HTTP Basic challenge with it and keeps it for that origin, as after the owner typed the
 * secret into the browser's prompt (headless Chromium shows none).
 */
export function withOwnerSecret(url: string, secret: string): string {
  const out = new URL(url);
  out.username = 'owner';
  out.password = secret;
  return out.href;
}

export async function startPageSite(): Promise<PageSite> {
  const relay = await withRelay();
  let browser: TestBrowser | undefined;
  try {
    browser = await launchBrowser();
    return { relay, browser, page: await browser.newPage() };
  } catch (err) {
    await stopPageSite({ relay, browser });
    throw err;
  }
}

export async function stopPageSite(site: Partial<Pick<PageSite, 'relay' | 'browser'>>): Promise<void> {
  await site.browser?.close();
  await site.relay?.stop();
}
