/**
 * The page that shows a new personal access token, once (`auth/reveal.ts` makes it once), and the
 * page a second visit gets instead. Pure rendering; every value escaped by `html`.
 */
import type { Reveal } from '../auth/reveal.ts';
import { utcMinute } from './dashboard-format.ts';
import { html, type Html } from './html.ts';

/** The token, with the warning that it will not be shown again. */
export function tokenShownOnceBody(reveal: Reveal): Html {
  return html`<h1>Token created</h1>
<p class="warn" role="alert"><strong>Copy this token now. It is shown only this once</strong>: the relay does not keep it, and reloading this page will not bring it back.</p>
<dl>
<dt>Name</dt><dd>${reveal.name}</dd>
<dt>Scopes</dt><dd>${reveal.scopes.join(' ')}</dd>
<dt>Expires</dt><dd>${utcMinute(reveal.expires_at)}</dd>
</dl>
<h2>Token</h2>
<p class="secret"><code id="token">${reveal.token}</code></p>
<p>Send it as <code>Authorization: Bearer &lt;token&gt;</code> to this relay's <code>/mcp</code> URL.</p>
<p><a href="/dashboard#tokens">Back to the dashboard</a></p>`;
}

/** What a reload (or any later visit) of the shown-once page gets. */
export function tokenGoneBody(): Html {
  return html`<h1>Nothing to show</h1>
<p>A token is shown once, right after it is created. This one is no longer available; if it was not copied, revoke it and create another.</p>
<p><a href="/dashboard#tokens">Back to the dashboard</a></p>`;
}
