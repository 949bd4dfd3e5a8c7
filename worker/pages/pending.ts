/**
 * The Pending page (README "Deciding from elsewhere"): every decision the agents online hold for
 * the owner — a prompt's command or edit, a review's diffs — by device and editor, whole, with
 * Allow once / Deny (with a reason) or Accept / Reject (with a reason); after an answer, what came
 * of it. Pure rendering: takes plain data (and the clock), returns markup; the route gathers it.
 * Every string an agent sent is untrusted: shown as an editor's prompt shows it (protocol/visible.ts:
 * nothing hidden in invisible characters or runs of blanks) and escaped by `html`. No script; each
 * form carries the session's CSRF token and its own nonce (auth/decision-forms.ts).
 */
import { visible, type DecideOutcome, type DecisionOffer, type WireDecision } from '../../protocol/index.ts';
import { html, trusted, type Html } from './html.ts';

/** A decision as the page lists it: as published, with the nonce of its forms. */
export type ListedDecision = WireDecision & { nonce: string };

/** What the page shows. */
export interface PendingData {
  csrf: string;
  nowMs: number;
  devices: { device: { id: string; name: string }; decisions: ListedDecision[] }[];
  /** What came of the answer just sent, when the page answers a form. */
  outcome?: DecideOutcome;
}

/** The HTTP status of a page that answers a form with `outcome`. */
export function outcomeStatus(outcome: DecideOutcome): number {
  if (outcome.ok) return 200;
  switch (outcome.code) {
    case 'FORGED':
    case 'NOT_OFFERED':
      return 403;
    case 'UNKNOWN_DEVICE':
      return 404;
    case 'REPLAYED':
    case 'OTHER_DEVICE':
    case 'ALREADY_DECIDED':
      return 409;
    case 'NOT_PENDING':
      return 410;
    case 'INVALID_ANSWER':
      return 400;
    case 'DEVICE_OFFLINE':
      return 503;
    case 'NO_ANSWER':
      return 504;
  }
}

const WHERE = { editor: 'in the editor', dashboard: 'on the dashboard', assistant: 'in the assistant' } as const;

/** What the page says of `outcome`: fixed text only, never an agent's. */
export function outcomeText(outcome: DecideOutcome): string {
  if (outcome.ok) {
    switch (outcome.said) {
      case 'allowed':
        return 'Allowed once: the call runs in the editor.';
      case 'denied':
        return 'Denied: the assistant hears so, with your reason.';
      case 'accepted':
        return 'Accepted: applied in the editor, unsaved.';
      case 'rejected':
        return 'Rejected: nothing was changed.';
      case 'not_applied':
        return 'Accepted, but it could not be applied (the buffer changed where it edits, or the editor went away): nothing was changed.';
    }
  }
  switch (outcome.code) {
    case 'ALREADY_DECIDED':
      return `Already decided ${outcome.by === undefined ? 'elsewhere' : WHERE[outcome.by]}: your answer changed nothing.`;
    case 'NOT_PENDING':
      return 'Nothing waits for this answer any more: it was answered, closed or expired.';
    case 'NOT_OFFERED':
      return 'Your policy keeps this decision off the dashboard (ask_via): answer it where it asks.';
    case 'INVALID_ANSWER':
      return 'This decision does not take that answer (allow and accept are offered only for what can be shown here whole).';
    case 'FORGED':
      return 'This form was not made by this relay for this sign-in and this decision: nothing was sent.';
    case 'REPLAYED':
      return 'This form was sent already: nothing was sent again. The list below is current.';
    case 'UNKNOWN_DEVICE':
      return 'No device of this account has that id: nothing was sent.';
    case 'OTHER_DEVICE':
      return 'That decision waits on another device than the form names: nothing was sent.';
    case 'DEVICE_OFFLINE':
      return "The device's agent is not connected: nothing was decided.";
    case 'NO_ANSWER':
      return "The device's agent did not answer in time: the decision may still be waiting. Reload the page.";
  }
}

// Page-specific layout on top of the shared stylesheet: whole text that wraps on a phone.
const STYLE = trusted(`
.decision { border: 1px solid var(--line); border-radius: 8px; padding: .6rem .8rem; margin: .8rem 0; }
.decision h4 { margin: 0 0 .3rem; font-size: 1rem; overflow-wrap: anywhere; }
.decision ul { margin: .2rem 0; padding-left: 1.2rem; }
.decision li, .decision p { overflow-wrap: anywhere; }
pre.shown { white-space: pre-wrap; overflow-wrap: anywhere; font: .85rem/1.4 ui-monospace, monospace; margin: .3rem 0; padding: .5rem; border: 1px solid var(--line); border-radius: 6px; }
pre.shown .add { color: #1a7f37; } pre.shown .del { color: var(--bad); } pre.shown .at { color: var(--muted); }
.answers { display: flex; flex-wrap: wrap; gap: .5rem; align-items: flex-end; margin-top: .5rem; }
.answers form { flex: 1 1 14rem; }
.answers label { margin: 0 0 .3rem; }
.outcome { border-radius: 8px; padding: .6rem .8rem; border: 1px solid var(--line); }
.outcome.ok { border-color: #1a7f37; } .outcome.refused { border-color: var(--bad); }
small { color: var(--muted); }
`);

function hidden(name: string, value: string): Html {
  return html`<input type="hidden" name="${name}" value="${value}">`;
}

/** The fields every answer form of `d` carries. */
function formFields(data: PendingData, device: string, d: ListedDecision): Html {
  return html`${hidden('csrf', data.csrf)}${hidden('device', device)}${hidden('decision', d.id)}${hidden('nonce', d.nonce)}`;
}

const LABELS: Record<DecisionOffer, string> = { allow: 'Allow once', deny: 'Deny', accept: 'Accept', reject: 'Reject' };

/** The answer forms of `d`: a positive answer alone; a negative one with a reason. */
function answers(data: PendingData, device: string, d: ListedDecision): Html {
  const forms = d.offers.map((offer) => {
    const fields = formFields(data, device, d);
    const label = LABELS[offer];
    if (offer === 'allow' || offer === 'accept') {
      return html`<form method="post" action="/dashboard/pending">${fields}${hidden('answer', offer)}<button class="primary" type="submit">${label}</button></form>`;
    }
    return html`<form method="post" action="/dashboard/pending">${fields}${hidden('answer', offer)}<label>Reason (optional) <input type="text" name="reason" maxlength="2000"></label><button class="danger" type="submit">${label}</button></form>`;
  });
  return html`<div class="answers">${forms}</div>`;
}

/** One line of a shown text: a diff's added, removed and hunk lines marked. */
function shownLine(line: string, diff: boolean): Html {
  const text = visible(line);
  if (!diff) return html`${text}\n`;
  const kind = line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : line.startsWith('@@') ? 'at' : '';
  return kind ? html`<span class="${kind}">${text}</span>\n` : html`${text}\n`;
}

function sections(d: WireDecision): Html[] {
  const diff = d.kind === 'review';
  return d.sections.map((s) => {
    const title = s.title === null ? '' : html`<p><code>${visible(s.title)}</code></p>`;
    if (s.lines === null) {
      const there = d.kind === 'prompt' ? 'only deny is offered' : 'only reject is offered here; review it in the editor to accept it';
      return html`${title}<p class="warn">${s.chars.toLocaleString('en-US')} characters: too long to show here whole, so ${there}.</p>`;
    }
    return html`${title}<pre class="shown">${s.lines.map((l) => shownLine(l, diff))}</pre>`;
  });
}

/** When `d` closes, in words. */
function closes(d: WireDecision, nowMs: number): string {
  const seconds = Math.max(0, Math.round((Date.parse(d.expires_at) - nowMs) / 1000));
  return seconds < 120 ? `closes unanswered in ${seconds} s` : `expires in ${Math.round(seconds / 60)} min`;
}

function decisionCard(data: PendingData, device: string, d: ListedDecision): Html {
  const who = visible(d.client);
  const what = d.kind === 'prompt' ? html`${who} asks to run <code>${visible(d.tool)}</code> (${d.klass})` : html`${who} proposes <code>${visible(d.tool)}</code> (review)`;
  // A review names each file above its diff; a prompt lists the files the call addresses.
  const paths = d.kind === 'review' || d.paths.length === 0 ? '' : html`<ul>${d.paths.map((p) => html`<li><code>${visible(p)}</code></li>`)}</ul>`;
  return html`<article class="decision" id="d-${d.id}" aria-label="${d.kind === 'prompt' ? 'prompt' : 'review'}: ${visible(d.tool)}">
<h4>${what}</h4>
${paths}
<p><small>${closes(d, data.nowMs)}</small></p>
${sections(d)}
${answers(data, device, d)}
</article>`;
}

function deviceSection(data: PendingData, entry: PendingData['devices'][number]): Html {
  const editors = new Map<string, ListedDecision[]>();
  for (const d of entry.decisions) editors.set(d.editor, [...(editors.get(d.editor) ?? []), d]);
  const groups = [...editors.entries()].map(([editor, list]) => {
    const name = visible(list[0]?.editor_name ?? '');
    return html`<h3>${name} <small><code>${visible(`${entry.device.name}/${editor}`)}</code></small></h3>${list.map((d) => decisionCard(data, entry.device.id, d))}`;
  });
  return html`<section aria-label="device ${visible(entry.device.name)}"><h2>${visible(entry.device.name)}</h2>${groups}</section>`;
}

function outcomeBox(outcome: DecideOutcome): Html {
  const code = outcome.ok ? outcome.said : outcome.code;
  return html`<p class="outcome ${outcome.ok ? 'ok' : 'refused'}" role="status" data-outcome="${code}">${outcomeText(outcome)}</p>`;
}

/** The Pending page's body. */
export function pendingBody(data: PendingData): Html {
  const count = data.devices.reduce((n, e) => n + e.decisions.length, 0);
  const list = count === 0 ? html`<p class="empty"><em>Nothing waits for you.</em></p>` : data.devices.map((e) => deviceSection(data, e));
  return html`<style>${STYLE}</style>
<h1>Pending decisions</h1>
${data.outcome === undefined ? '' : outcomeBox(data.outcome)}
<p><small>Prompts and reviews waiting in your editors, to answer from here. The first answer wins, wherever it is given; a prompt closes unanswered shortly before its call's deadline. <a href="/dashboard/pending">Reload</a></small></p>
${list}`;
}
