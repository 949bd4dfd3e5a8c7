/**
 * The relay's front page (`GET /`) and the page a browser gets for a path that does not exist.
 * What this is, where to sign in, and the MCP URL to paste into an assistant. Pure rendering: the
 * route passes the relay's origin; every value goes through `html`.
 */
import { html } from './html.ts';
import { page } from './layout.ts';

/** The front page of the relay at `origin`. */
export function homePage(origin: string): Response {
  const mcp = `${origin}/mcp`;
  return page({
    title: 'vimrelay',
    body: html`<h1>vimrelay relay</h1>
<p>This relay lets AI assistants (Claude, ChatGPT, Claude Code, Cursor, any MCP client) read and edit the live buffers of the Neovim and Vim editors on the machines paired with it. Every call goes through the agent on that machine, which applies its owner's permissions.</p>
<h2>Connect an assistant</h2>
<p>Paste this MCP URL where the assistant adds a connector (Claude: <em>Settings → Connectors → Add custom connector</em>; ChatGPT: <em>Apps &amp; Connectors</em>, developer mode):</p>
<p class="secret"><code>${mcp}</code></p>
<p>The assistant asks you to sign in here and to choose what it may do. From a terminal: <code>claude mcp add --transport http vimrelay ${mcp}</code>.</p>
<h2>Pair a machine</h2>
<p>On the machine with your editors: <code>vimrelay pair ${origin}</code>, then approve its code on this relay.</p>
<p><a href="/dashboard">Sign in to the dashboard</a> to see devices, connected assistants, tokens and recent calls.</p>`,
  });
}

/** 404 for a browser: the path is not a page of this relay. */
export function missingPage(): Response {
  return page({
    title: 'Not found',
    status: 404,
    body: html`<h1>Not found</h1><p>This relay has no page at this address.</p><p><a href="/">What this relay is</a> · <a href="/dashboard">Dashboard</a></p>`,
  });
}
