/**
 * The owner's pairing pages (RFC 8628 §3.3 user interaction): typing a code, with the list of
 * requests waiting for the owner (name, hostname, where from, when; each with Dismiss, never its
 * code or an Approve button: approving takes the code the terminal shows); reviewing a request
 * (device name, hostname, code, when it was asked for and when it expires) with Approve and Deny;
 * a request its device cancelled; the outcome; and a ticket for the owner's own pairing, which no
 * pairing limit refuses (the command to run with it). Every value from the device is escaped by
 * `html`; the forms carry the session's CSRF token. Builds Responses only: `routes/pair.ts`
 * decides which.
 */
import type { IssuedTicket } from '../hub/pairing-tickets.ts';
import type { PairingView, PendingView } from '../hub/pairings.ts';
import { ago } from './dashboard-format.ts';
import { html, type Html } from './html.ts';
import { page } from './layout.ts';

/**
 * The name a device is paired as (what `vimrelay pair` then says), and, when another device has the
 * name it asked for, that name too.
 */
function deviceName(request: Pick<PairingView, 'name' | 'device_name'>): Html {
  if (request.device_name === request.name) return html`<strong>${request.device_name}</strong>`;
  return html`<strong>${request.device_name}</strong> <span class="muted">(it asked for ${request.name}, which another device has)</span>`;
}

/** `2026-12-01T02:15:01.000Z` as `2026-12-01 02:15:01 UTC`. */
function when(isoTime: string): string {
  return `${isoTime.slice(0, 10)} ${isoTime.slice(11, 19)} UTC`;
}

/** The requests waiting for the owner, each with Dismiss, and Dismiss all. */
function waitingList(pending: readonly PendingView[], csrf: string, nowMs: number): Html {
  if (pending.length === 0) return html`<p class="muted">No pairing request is waiting.</p>`;
  const csrfField = html`<input type="hidden" name="csrf" value="${csrf}">`;
  const rows = pending.map(
    (p) => html`<tr>
<td>${deviceName(p)}<br><span class="muted">${p.hostname}</span>${p.reserved ? html`<br><span class="muted">with your ticket</span>` : ''}</td>
<td>${p.client}</td>
<td title="${when(p.requested_at)}">${ago(p.requested_at, nowMs)}</td>
<td><form class="inline" method="post" action="/pair/dismiss">${csrfField}<input type="hidden" name="id" value="${p.id}"><button class="danger" type="submit" aria-label="Dismiss ${p.device_name}">Dismiss</button></form></td>
</tr>`,
  );
  return html`<table><thead><tr><th>Device and hostname</th><th>From</th><th>Asked</th><th></th></tr></thead><tbody>${rows}</tbody></table>
<form method="post" action="/pair/dismiss">${csrfField}<input type="hidden" name="all" value="1"><p><button class="danger" type="submit">Dismiss all</button></p></form>
<p class="muted">Requests you did not start yourself are someone else's: dismiss them. A dismissed request is refused; its terminal says so.</p>`;
}

/** The form to type the code a terminal shows, and the requests waiting. */
export function codeEntryPage(csrf: string, pending: readonly PendingView[], nowMs: number): Response {
  return page({
    title: 'Pair a device',
    csrf,
    body: html`<h1>Pair a device</h1>
<p class="muted">Type the code that <code>vimrelay pair</code> shows in the terminal of the machine you are pairing.</p>
<form method="get" action="/pair">
<label>Code <input type="text" name="code" autocomplete="off" autocapitalize="characters" spellcheck="false" placeholder="XXXX-XXXX" required autofocus></label>
<p><button class="primary" type="submit">Continue</button></p>
</form>
<h2>Waiting for approval</h2>
${waitingList(pending, csrf, nowMs)}
<h2>A machine of yours</h2>
<p class="muted">Anyone may ask to pair, so requests of strangers can fill the queue, and <code>vimrelay pair</code> is then refused. A ticket lets one request of yours in past them; you still approve its code.</p>
<form method="post" action="/pair/ticket"><input type="hidden" name="csrf" value="${csrf}"><p><button type="submit">Get a pairing ticket</button></p></form>`,
  });
}

/** A ticket for the owner's own pairing, shown once, with the command that uses it. */
export function ticketPage(issued: IssuedTicket, origin: string, csrf: string): Response {
  return page({
    title: 'Pairing ticket',
    csrf,
    body: html`<h1>Pairing ticket</h1>
<p>On the machine you are pairing, run:</p>
<p class="secret"><code>vimrelay pair ${origin} --ticket ${issued.ticket}</code></p>
<p>The ticket works once, within ${Math.round(issued.expires_in / 60)} minutes, however many requests wait. It only holds a place: approve the code that terminal shows, as for any request. The ticket is shown this once.</p>
<p><a href="/pair">Back to pairing</a></p>`,
  });
}

/** A request whose device cancelled it (Ctrl-C in `vimrelay pair`): nothing to approve. */
export function cancelledPage(request: PairingView, csrf: string): Response {
  return page({
    title: 'Request cancelled',
    status: 410,
    csrf,
    body: html`<h1>This request was cancelled</h1>
<p>The terminal on <strong>${request.hostname}</strong> stopped <code>vimrelay pair</code>, so code <strong>${request.user_code}</strong> can no longer be approved. Nothing was paired.</p>
<p>To pair that machine, run <code>vimrelay pair</code> there again and use the new code.</p>
<p><a href="/pair">Pair a device</a></p>`,
  });
}

/** A pending request, with Approve and Deny. */
export function requestPage(request: PairingView, csrf: string): Response {
  const hidden = html`<input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="code" value="${request.user_code}">`;
  return page({
    title: 'Approve this device?',
    csrf,
    body: html`<h1>Approve this device?</h1>
<p>A machine asks to serve its editors through this relay. Approve only if you started <code>vimrelay pair</code> on it yourself and its terminal shows this code.</p>
<div class="box">
<p class="code">${request.user_code}</p>
<table>
<tr><th scope="row">Device name</th><td>${deviceName(request)}</td></tr>
<tr><th scope="row">Hostname</th><td>${request.hostname}</td></tr>
<tr><th scope="row">Requested</th><td>${when(request.requested_at)}</td></tr>
<tr><th scope="row">Expires</th><td>${when(request.expires_at)}</td></tr>
</table>
</div>
<p>Once approved, the device can read and edit the buffers of its own editors on behalf of the assistants you connect, within the permissions it sets locally. You can revoke it at any time.</p>
<form class="inline" method="post" action="/pair/approve">${hidden}<button class="primary" type="submit">Approve</button></form>
<form class="inline" method="post" action="/pair/deny">${hidden}<button class="danger" type="submit">Deny</button></form>`,
  });
}

/** The outcome of the owner's decision. */
export function decidedPage(request: PairingView, approved: boolean, csrf: string): Response {
  return page({
    title: approved ? 'Device approved' : 'Device denied',
    csrf,
    body: approved
      ? html`<h1>Device approved</h1>
<p>${deviceName(request)} (${request.hostname}) is paired under that name. Its terminal finishes on its own, saying so; run <code>vimrelay agent</code> there to connect its editors.</p>
<p><a href="/pair">Pair another device</a></p>`
      : html`<h1>Device denied</h1>
<p>The request from <strong>${request.hostname}</strong> (as ${request.name}) was refused; its terminal says so. Nothing was paired.</p>`,
  });
}

/** No pending request has this code: never says whether one ever did. */
export function notFoundPage(csrf: string): Response {
  return page({
    title: 'Code not found',
    status: 404,
    csrf,
    body: html`<h1>Code not found or expired</h1>
<p>No device is waiting with this code. Codes work once and expire after 10 minutes: run <code>vimrelay pair</code> again for a new one.</p>
<p><a href="/pair">Type a code</a></p>`,
  });
}

/** Too many wrong codes in a minute (RFC 8628 §5.1). */
export function limitedPage(retryAfterS: number, csrf: string): Response {
  return page({
    title: 'Too many attempts',
    status: 429,
    csrf,
    headers: new Headers({ 'Retry-After': String(retryAfterS) }),
    body: html`<h1>Too many wrong codes</h1>
<p>To keep codes from being guessed, code entry is paused. Try again in ${retryAfterS} seconds.</p>`,
  });
}
