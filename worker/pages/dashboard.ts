/**
 * The owner's dashboard page: the MCP URLs to connect an assistant with (dashboard-connect.ts),
 * devices, editors online, OAuth grants, personal access tokens, recent calls, and signing out
 * everywhere. Pure rendering: takes plain data (and the clock), returns markup; the route
 * gathers the data. Every value passes through `html`, which escapes it: device, editor, client
 * and token names are all chosen by someone other than the owner. Every form posts with the
 * session's CSRF token; there is no script.
 */
import { ALL_SCOPES } from '../../protocol/index.ts';
import type { EditorInfo } from '../../protocol/index.ts';
import type { TokenRecord } from '../auth/tokens.ts';
import type { LoggedCall } from '../hub/call-log.ts';
import { connectSection } from './dashboard-connect.ts';
import { ago, duration, utcClock, utcMinute } from './dashboard-format.ts';
import { html, trusted, type Html } from './html.ts';

/**
 * A device row. `hostname` is shown when pairing recorded one; `last_refused_at` / `_from` when a
 * connection with its credential was refused for want of its agent's takeover key (someone else
 * may hold the credential).
 */
export interface DeviceView {
  id: string;
  name: string;
  hostname?: string | null;
  online: boolean;
  last_seen_at: string | null;
  revoked: boolean;
  last_refused_at?: string | null;
  last_refused_from?: string | null;
}

/** An OAuth client row: which client, where its grants redirect, what they allow, how many there are. */
export interface GrantView {
  clientId: string;
  clientName: string;
  redirectHosts: string[];
  /** The scopes of all its grants together. */
  scopes: string[];
  /** How many grants (consents) it holds. */
  grants: number;
  /** When the owner last allowed it (ISO 8601). */
  lastAllowedAt: string;
}

/** What the token-creation form shows again after a refused submission. */
export interface TokenFormValues {
  name: string;
  scopes: readonly string[];
  days: string;
}

/** Everything the dashboard shows. */
export interface DashboardData {
  csrf: string;
  /** How the owner signs in here: the session cookie, or (the local relay) HTTP Basic with the secret itself. */
  signIn: 'cookie' | 'basic';
  nowMs: number;
  /** The relay's MCP URL, `<origin>/mcp`. */
  mcpUrl: string;
  devices: DeviceView[];
  editors: EditorInfo[];
  grants: GrantView[];
  tokens: TokenRecord[];
  calls: LoggedCall[];
  /** The name to show for each client id of `calls`. */
  clientNames: Readonly<Record<string, string>>;
  /** Shown above the token form when a submission was refused. */
  tokenError?: string;
  tokenForm?: TokenFormValues;
}

/** Default lifetime offered by the token form (days). */
export const DEFAULT_TOKEN_DAYS = 90;

/** Scopes the token form has checked when it first appears (the OAuth consent page's default too). */
export const DEFAULT_SCOPES: readonly string[] = ['read', 'write'];

// Page-specific layout on top of the shared stylesheet: tables that stack into cards on a phone.
const STYLE = trusted(`
.sections { display: flex; flex-wrap: wrap; gap: .25rem 1rem; padding: 0; list-style: none; }
.empty { color: var(--muted); font-style: italic; }
.pill { display: inline-block; padding: 0 .45rem; border-radius: 999px; border: 1px solid var(--line); font-size: .85rem; white-space: nowrap; }
.pill.on { color: #1a7f37; border-color: #1a7f37; } .pill.bad { color: var(--bad); border-color: var(--bad); }
.scopes label { display: inline-block; margin: .2rem 1rem .2rem 0; }
input[type=number] { width: 7rem; padding: .5rem; font: inherit; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
td.act { text-align: right; white-space: nowrap; }
small { color: var(--muted); }
@media (max-width: 36rem) {
  table.cards thead { display: none; }
  table.cards, table.cards tbody, table.cards tr, table.cards td { display: block; width: 100%; }
  table.cards tr { border: 1px solid var(--line); border-radius: 8px; padding: .4rem .6rem; margin: .6rem 0; }
  table.cards td { border: 0; padding: .15rem 0; }
  table.cards td.act { text-align: left; }
}
`);

function csrfField(csrf: string): Html {
  return html`<input type="hidden" name="csrf" value="${csrf}">`;
}

function revokeButton(action: string, csrf: string, label: string, what: string): Html {
  return html`<form class="inline" method="post" action="${action}">${csrfField(csrf)}<button class="danger" type="submit" aria-label="${label} ${what}">${label}</button></form>`;
}

function section(id: string, title: string, body: Html): Html {
  return html`<section id="${id}" aria-labelledby="${id}-h"><h2 id="${id}-h">${title}</h2>${body}</section>`;
}

function devicesSection(d: DashboardData): Html {
  if (d.devices.length === 0) {
    return html`<p class="empty">No devices yet. On a machine with Neovim or Vim, run <code>vimrelay pair &lt;this relay's URL&gt;</code>.</p>`;
  }
  const rows = d.devices.map((dev) => {
    const state = dev.revoked
      ? html`<span class="pill bad">revoked</span>`
      : dev.online
        ? html`<span class="pill on">online</span>`
        : html`<span class="pill">offline</span>`;
    return html`<tr>
<td><strong>${dev.name}</strong>${dev.hostname ? html`<br><small>${dev.hostname}</small>` : ''}</td>
<td>${state}</td>
<td><small>last seen</small> <span title="${utcMinute(dev.last_seen_at)}">${ago(dev.last_seen_at, d.nowMs)}</span>${refusedLine(dev, d.nowMs)}</td>
<td class="act">${dev.revoked ? '' : revokeButton(`/dashboard/devices/${encodeURIComponent(dev.id)}/revoke`, d.csrf, 'Revoke', dev.name)}</td>
</tr>`;
  });
  return html`<table class="cards"><thead><tr><th>Device</th><th>State</th><th>Activity</th><th></th></tr></thead><tbody>${rows}</tbody></table>
<p><small>Revoking a device disconnects its agent at once; its credential stops working.</small></p>`;
}

/** The last connection refused as the device (its credential without its agent's key), if any. */
function refusedLine(dev: DeviceView, nowMs: number): Html | string {
  if (!dev.last_refused_at) return '';
  return html`<br><small class="bad">connection refused</small> <span title="${utcMinute(dev.last_refused_at)}">${ago(dev.last_refused_at, nowMs)}</span> <small>from ${dev.last_refused_from ?? 'unknown'}: it had this device's credential but not its agent's key; if that was not you, revoke the device and pair it again</small>`;
}

function editorsSection(d: DashboardData): Html {
  if (d.editors.length === 0) return html`<p class="empty">No editor is online.</p>`;
  const rows = d.editors.map(
    (e) => html`<tr>
<td><code>${e.id}</code><br><small>${e.kind} ${e.version}</small></td>
<td>${e.name}</td>
<td><code>${e.cwd}</code>${e.current_file ? html`<br><small>${e.current_file}</small>` : ''}</td>
</tr>`,
  );
  return html`<table class="cards"><thead><tr><th>Editor</th><th>Name</th><th>Directory and file</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function grantsSection(d: DashboardData): Html {
  if (d.grants.length === 0) return html`<p class="empty">No assistant is connected through OAuth.</p>`;
  const rows = d.grants.map(
    (g) => html`<tr>
<td><strong>${g.clientName}</strong><br><small>redirects to ${g.redirectHosts.join(', ')}</small></td>
<td>${g.scopes.join(' ')}</td>
<td>${utcMinute(g.lastAllowedAt)}${g.grants > 1 ? html`<br><small>${g.grants} authorizations</small>` : ''}</td>
<td class="act"><form class="inline" method="post" action="/dashboard/grants/revoke">${csrfField(d.csrf)}<input type="hidden" name="client" value="${g.clientId}"><button class="danger" type="submit" aria-label="Revoke ${g.clientName}">Revoke</button></form></td>
</tr>`,
  );
  return html`<table class="cards"><thead><tr><th>Client</th><th>Scopes</th><th>Last allowed</th><th></th></tr></thead><tbody>${rows}</tbody></table>
<p><small>One row per assistant: allowing it again updates its row. Revoking ends every one of its access and refresh tokens (on every machine it was connected from); it must ask for consent again.</small></p>`;
}

function tokenRows(d: DashboardData): Html {
  if (d.tokens.length === 0) return html`<p class="empty">No personal access tokens.</p>`;
  const rows = d.tokens.map((t) => {
    const status = t.status === 'active' ? html`<span class="pill on">active</span>` : html`<span class="pill bad">${t.status}</span>`;
    return html`<tr>
<td><strong>${t.name}</strong><br><small>${t.scopes.join(' ')}</small></td>
<td>${status}</td>
<td><small>created</small> ${utcMinute(t.created_at)}<br><small>expires</small> ${utcMinute(t.expires_at)}</td>
<td class="act">${t.status === 'active' ? revokeButton(`/dashboard/tokens/${encodeURIComponent(t.jti)}/revoke`, d.csrf, 'Revoke', t.name) : ''}</td>
</tr>`;
  });
  return html`<table class="cards"><thead><tr><th>Name and scopes</th><th>Status</th><th>Dates</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
}

function tokenForm(d: DashboardData): Html {
  const values = d.tokenForm ?? { name: '', scopes: DEFAULT_SCOPES, days: String(DEFAULT_TOKEN_DAYS) };
  const boxes = ALL_SCOPES.map(
    (scope) => html`<label><input type="checkbox" name="scope" value="${scope}"${values.scopes.includes(scope) ? trusted(' checked') : ''}> ${scope}</label>`,
  );
  return html`<form class="box" method="post" action="/dashboard/tokens">
<h3>New token</h3>
${d.tokenError ? html`<p class="bad" role="alert">${d.tokenError}</p>` : ''}
${csrfField(d.csrf)}
<label>Name <input type="text" name="name" value="${values.name}" required maxlength="64" placeholder="laptop-claude-code"></label>
<fieldset class="scopes"><legend>Scopes</legend>${boxes}</fieldset>
<label>Lifetime (days) <input type="number" name="days" value="${values.days}" min="1" max="365" required></label>
<p><button class="primary" type="submit">Create token</button></p>
<p><small>For clients that send an <code>Authorization</code> header (Claude Code, Cursor, the MCP Inspector). The token is shown once.</small></p>
</form>`;
}

function callsSection(d: DashboardData): Html {
  if (d.calls.length === 0) return html`<p class="empty">No calls yet.</p>`;
  const rows = d.calls.map(
    (c) => html`<tr>
<td><span title="${utcMinute(c.at)}">${utcClock(c.at)}</span></td>
<td><code>${c.tool}</code><br><small>${c.editor || 'no editor'} · <span title="${c.client}">${d.clientNames[c.client] ?? c.client}</span></small></td>
<td>${c.outcome === 'ok' ? html`<span class="pill on">ok</span>` : html`<span class="pill bad">${c.outcome}</span>`} <small>${duration(c.duration_ms)}</small></td>
</tr>`,
  );
  return html`<table class="cards"><thead><tr><th>Time (UTC)</th><th>Tool, editor, client</th><th>Outcome</th></tr></thead><tbody>${rows}</tbody></table>
<p><small>${d.calls.length === 1 ? 'The last call' : `The last ${d.calls.length} calls`}. Arguments and buffer contents are never recorded.</small></p>`;
}

function sessionsSection(d: DashboardData): Html {
  if (d.signIn === 'basic') {
    return html`<p>Browsers sign in to this relay with the owner secret itself, and keep it until they quit. To sign every browser out, change <code>OWNER_SECRET</code> in <code>.dev.vars</code> and restart <code>npm start</code>.</p>`;
  }
  return html`<form class="box" method="post" action="/signout/everywhere">${csrfField(d.csrf)}
<p>Signed in with the owner secret in another browser, or on a machine you no longer trust? This ends every sign-in to this relay, this one included; each browser must sign in again.</p>
<p><button class="danger" type="submit">Sign out everywhere</button></p>
</form>`;
}

/** The dashboard body. */
export function dashboardBody(d: DashboardData): Html {
  return html`<style>${STYLE}</style>
<h1>Dashboard</h1>
<ul class="sections">
<li><a href="#connect">Connect</a></li><li><a href="#devices">Devices</a></li><li><a href="#editors">Editors</a></li><li><a href="#grants">OAuth</a></li><li><a href="#tokens">Tokens</a></li><li><a href="#calls">Recent calls</a></li><li><a href="#sessions">Sign-ins</a></li>
</ul>
${section('connect', 'Connect an assistant', connectSection(d.mcpUrl))}
${section('devices', 'Devices', devicesSection(d))}
${section('editors', 'Editors online', editorsSection(d))}
${section('grants', 'OAuth clients and grants', grantsSection(d))}
${section('tokens', 'Personal access tokens', html`${tokenRows(d)}${tokenForm(d)}`)}
${section('calls', 'Recent calls', callsSection(d))}
${section('sessions', 'Sign-ins', sessionsSection(d))}`;
}
