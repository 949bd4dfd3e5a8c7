/**
 * The frame of every page the relay serves (sign-in, dashboard, pairing approval, consent): one
 * small stylesheet inline, readable on a phone, and the headers that keep the pages from being
 * framed, cached or scripted. Pages carry no JavaScript at all: forms post, the server redirects.
 *
 * Headers: CSP with `frame-ancestors 'none'` (CSP Level 3; MCP security best practices require it
 * on consent pages) and no script source; `X-Frame-Options: DENY` for older browsers;
 * `Cache-Control: no-store` (pages show tokens and devices); `Referrer-Policy: no-referrer`.
 */
import { html, toString, trusted, type Html } from './html.ts';

/** Where a page's forms may post: this origin, plus any origin a form or its redirect reaches (consent). */
export interface PageOptions {
  title: string;
  body: Html;
  status?: number;
  /** Extra origins for CSP `form-action` (Chromium applies it to the redirect after a post too). */
  formActionOrigins?: readonly string[];
  /** This session's CSRF token: shows the navigation and the sign-out button, whose form carries it. */
  csrf?: string;
  /** Extra response headers (e.g. Set-Cookie). */
  headers?: Headers;
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #fff; --muted: #59636e; --line: #d1d9e0; --accent: #0b5cad; --warn: #9a6700; --bad: #c2272d; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d; --accent: #4493f8; --warn: #d29922; --bad: #f85149; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 46rem; padding: 1rem; font: 16px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; border-bottom: 1px solid var(--line); padding-bottom: .5rem; margin-bottom: 1rem; }
header strong { margin-right: auto; }
a { color: var(--accent); }
h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
table { width: 100%; border-collapse: collapse; font-size: .95rem; }
th, td { text-align: left; padding: .4rem .3rem; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: anywhere; }
th { color: var(--muted); font-weight: 600; }
form.inline { display: inline; }
input[type=text], input[type=password] { width: 100%; padding: .6rem; font: inherit; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
button { font: inherit; padding: .5rem 1rem; border-radius: 6px; border: 1px solid var(--line); background: var(--bg); color: var(--fg); cursor: pointer; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.danger { color: var(--bad); }
label { display: block; margin: .4rem 0; }
code, .code { font-family: ui-monospace, monospace; }
.code { font-size: 1.6rem; letter-spacing: .2em; }
.muted { color: var(--muted); } .warn { color: var(--warn); } .bad { color: var(--bad); }
.box { border: 1px solid var(--line); border-radius: 8px; padding: 1rem; margin: 1rem 0; }
.secret { overflow-wrap: anywhere; padding: .6rem; border: 1px dashed var(--warn); border-radius: 6px; }
`;

/** Security headers of every page; `formActionOrigins` widen `form-action`. */
export function pageHeaders(formActionOrigins: readonly string[] = []): Headers {
  const formAction = ["'self'", ...formActionOrigins].join(' ');
  return new Headers({
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  });
}

/** A whole page as a Response. */
export function page(options: PageOptions): Response {
  const headers = pageHeaders(options.formActionOrigins);
  options.headers?.forEach((value, name) => headers.append(name, value));
  const nav =
    options.csrf !== undefined
      ? html`<nav><a href="/dashboard">Dashboard</a> · <a href="/dashboard/pending">Pending</a></nav>
<form class="inline" method="post" action="/signout"><input type="hidden" name="csrf" value="${options.csrf}"><button type="submit">Sign out</button></form>`
      : '';
  const doc = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${options.title} · vimrelay</title>
<style>${trusted(STYLE)}</style>
</head>
<body>
<header><strong>vimrelay</strong>${nav}</header>
<main>
${options.body}
</main>
</body>
</html>`;
  return new Response(toString(doc), { status: options.status ?? 200, headers });
}
