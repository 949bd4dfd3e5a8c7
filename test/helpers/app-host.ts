/**
 * An MCP Apps host in a real browser, for the decision card's tests: the official host side of
 * `@modelcontextprotocol/ext-apps` (its `app-bridge` export: `AppBridge` with
 * `PostMessageTransport`, from test/peers, bundled for the browser with esbuild) runs in a
 * Chromium page and renders an app's HTML in a sandboxed iframe (`allow-scripts` only: an opaque
 * origin, as hosts give apps), with the host context's theme; it hands the app the tool's input and
 * result, and forwards the app's `tools/call` to `callTool` (the test's real MCP client), as a
 * host forwards them to the server. Every request the page makes is recorded: the card must make
 * none.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';

const PEERS = join(dirname(fileURLToPath(import.meta.url)), '..', 'peers', 'node_modules');

let bundled: Promise<string> | undefined;

/** ext-apps' app-bridge as one browser script defining `ExtApps`. */
function appBridge(): Promise<string> {
  bundled ??= build({
    entryPoints: [join(PEERS, '@modelcontextprotocol', 'ext-apps', 'dist', 'src', 'app-bridge.js')],
    bundle: true,
    format: 'iife',
    globalName: 'ExtApps',
    platform: 'browser',
    nodePaths: [PEERS],
    write: false,
    logLevel: 'error',
  }).then((r) => r.outputFiles[0]?.text ?? '');
  return bundled;
}

export interface CardRender {
  /** The app's HTML (resources/read's text). */
  html: string;
  theme: 'light' | 'dark';
  /** The tool call's arguments and its result, as the host hands them to the app. */
  toolInput: Record<string, unknown>;
  toolResult: unknown;
  /** Forwards the app's tools/call to the server. */
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
}

/** What the page asked of the network besides its own document. */
export interface HostedCard {
  /** The app's iframe, to click in. */
  frame: ReturnType<Page['frameLocator']>;
  /** URLs the page requested (none is expected). */
  requests: string[];
}

/** Renders `card` in `page` through the ext-apps AppBridge; resolves once the app has initialized and was handed the input and result. */
export async function hostCard(page: Page, card: CardRender): Promise<HostedCard> {
  const requests: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith('about:') && !r.url().startsWith('data:')) requests.push(r.url());
  });
  await page.exposeFunction('hostCallTool', (params: { name: string; arguments?: Record<string, unknown> }) => card.callTool(params));
  const bg = card.theme === 'dark' ? '#121212' : '#f3f3f3';
  await page.setContent(`<!doctype html><html><body style="margin:0;background:${bg}"><iframe id="app" sandbox="allow-scripts" style="border:0;width:100%;height:600px;display:block"></iframe></body></html>`);
  await page.addScriptTag({ content: await appBridge() });
  await page.evaluate(
    async ({ html, theme, toolInput, toolResult }) => {
      type Bridge = {
        oncalltool: (params: unknown) => Promise<unknown>;
        onsizechange: (size: { height?: number }) => void;
        addEventListener(event: 'initialized', handler: () => void): void;
        connect(transport: unknown): Promise<void>;
        sendToolInput(params: unknown): Promise<void>;
        sendToolResult(params: unknown): Promise<void>;
      };
      const g = globalThis as unknown as {
        ExtApps: { AppBridge: new (client: null, info: unknown, caps: unknown, options: unknown) => Bridge; PostMessageTransport: new (target: Window, source: Window) => unknown };
        hostCallTool: (params: unknown) => Promise<unknown>;
      };
      const iframe = document.getElementById('app') as HTMLIFrameElement;
      const bridge = new g.ExtApps.AppBridge(null, { name: 'vimrelay-test-host', version: '1' }, { serverTools: {} }, { hostContext: { theme, displayMode: 'inline' } });
      bridge.oncalltool = (params) => g.hostCallTool(params);
      bridge.onsizechange = ({ height }) => {
        if (height !== undefined) iframe.style.height = `${height}px`;
      };
      const initialized = new Promise<void>((resolve) => bridge.addEventListener('initialized', resolve));
      // The frame's WindowProxy outlives its navigation to the app: listen first, so that the
      // app's ui/initialize, sent as soon as it runs, is heard.
      const win = iframe.contentWindow;
      if (!win) throw new Error('the app frame has no window');
      await bridge.connect(new g.ExtApps.PostMessageTransport(win, win));
      iframe.srcdoc = html;
      await initialized;
      await bridge.sendToolInput({ arguments: toolInput });
      await bridge.sendToolResult(toolResult);
    },
    { html: card.html, theme: card.theme, toolInput: card.toolInput, toolResult: card.toolResult },
  );
  return { frame: page.frameLocator('#app'), requests };
}
