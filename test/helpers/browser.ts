/**
 * `launchBrowser()`: a real headless Chromium (Debian's `chromium` package, or the set-up's copy of it, driven by
 * playwright-core) with a fresh profile directory, for the page tests. Screenshots go to
 * `test-artifacts/screenshots/`, which CI keeps. Close it in afterAll: `close()` ends the browser
 * process and removes the profile even when a test failed.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { needProgram } from './machine.ts';
import { onPath } from './on-path.ts';

/**
 * The Chromium binary: `$CHROMIUM_PATH`, else `chromium` on PATH (the distribution's package, or
 * the one the run's set-up fetched when the machine lacks it: setup/machine.ts).
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? onPath('chromium', process.env.PATH ?? '') ?? '/usr/bin/chromium';

/** Where screenshots are written. */
export const SCREENSHOT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-artifacts', 'screenshots');

/** A phone's viewport (CSS pixels): the width the pages must fit without sideways scrolling. */
export const PHONE = { width: 390, height: 844 } as const;

// Quiet and offline: no first-run UI, no background fetches (the test machine has no network).
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  /** The one browser context (one cookie jar) of this run. */
  readonly context: BrowserContext;
  /** A new tab; `viewport` defaults to a desktop 1280×900. */
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  /** Saves a full-page screenshot as `<name>.png`; returns its path. */
  screenshot(page: Page, name: string): Promise<string>;
  /** Closes the browser and deletes its profile. Safe to call twice. */
  close(): Promise<void>;
}

/** Starts headless Chromium with a fresh profile directory. */
export async function launchBrowser(): Promise<TestBrowser> {
  needProgram('chromium');
  const profile = mkdtempSync(join(tmpdir(), 'vimrelay-chromium-'));
  let context: BrowserContext;
  try {
    // A persistent context on a fresh directory: Chromium's own --user-data-dir, nothing shared.
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ARGS,
      viewport: { width: 1280, height: 900 },
      timeout: 30_000,
    });
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
  context.setDefaultTimeout(15_000);
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  let closed = false;
  return {
    context,
    async newPage(viewport) {
      const page = await context.newPage();
      if (viewport) await page.setViewportSize(viewport);
      return page;
    },
    async screenshot(page, name) {
      const path = join(SCREENSHOT_DIR, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await context.close();
      } finally {
        rmSync(profile, { recursive: true, force: true });
      }
    },
  };
}

/** The page's layout width against its viewport: `scrollWidth <= innerWidth` means no sideways scroll. */
export function layoutWidth(page: Page): Promise<{ scrollWidth: number; innerWidth: number }> {
  return page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
}
