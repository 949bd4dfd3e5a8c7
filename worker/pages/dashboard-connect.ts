/**
 * The dashboard's "Connect an assistant" section: the MCP URL of the whole catalog and of each
 * toolset (protocol/toolsets.ts), to copy into a connector, with what each is for, the tools it
 * lists and the scopes it asks for. A connector for a toolset asks for its scopes alone, and its
 * model reads only its tools' descriptions on every turn. Pure rendering.
 */
import { toolsetList, WHOLE_CATALOG, type Toolset } from '../../protocol/index.ts';
import { html, type Html } from './html.ts';

function row(url: string, what: Html | string, toolset: Toolset, asks: string): Html {
  return html`<tr>
<td><code class="secret">${url}</code><br><small>${what}</small></td>
<td><small>${toolset.tools.map((t) => t.name).join(', ')}</small></td>
<td><small>${asks}</small></td>
</tr>`;
}

/** The section's body for the relay whose MCP URL is `mcpUrl` (`<origin>/mcp`). */
export function connectSection(mcpUrl: string): Html {
  const rows = [
    row(mcpUrl, 'every tool', WHOLE_CATALOG, 'read write; the others when a call needs them'),
    ...toolsetList().map(({ name, about, toolset }) => row(`${mcpUrl}/${name}`, about, toolset, toolset.plainClasses.join(' '))),
  ];
  return html`<p>Paste one of these URLs where the assistant adds a connector (Claude: <em>Settings → Connectors → Add custom connector</em>; ChatGPT: <em>Apps &amp; Connectors</em>, developer mode). A toolset's URL lists only its tools, so the assistant reads fewer of them on every turn, and asks only for the scopes they need. Toolsets combine with <code>+</code>: <code>${mcpUrl}/read+lsp</code>.</p>
<table class="cards"><thead><tr><th>URL</th><th>Tools</th><th>Asks for</th></tr></thead><tbody>${rows}</tbody></table>`;
}
