/**
 * The decision card (README "Deciding from elsewhere", "In the assistant"): an MCP App (the MCP
 * Apps extension, `io.modelcontextprotocol/ui`, SEP-1865) that a host renders beside a call whose
 * prompt or review waits for the user, showing the command or the diff as the editor shows it
 * and answering with the app-only tool `decide` (tools/decide.ts). What a server declares for it:
 *   - each asking and edit tool's `_meta.ui.resourceUri` (CARD_URI), so that a host renders the
 *     card with the tool's result;
 *   - `resources/list` and `resources/read` of the card: `text/html;profile=mcp-app`, one
 *     self-contained document (card-html.ts), with `_meta.ui.csp` declaring no outside domain and
 *     `_meta.ui.domain` (ChatGPT's sandbox origin wants one);
 *   - `decide` with `_meta.ui.visibility: ["app"]`: the host keeps it from the model.
 * A host hides an app-only tool from its model only if it implements MCP Apps, so `decide` is
 * listed and served only to a client that declared the extension (`uiDeclared`): in the 2025 era
 * in `initialize` capabilities `extensions` (MCP 2025-11-25 "Lifecycle", the extensions field of
 * ClientCapabilities), in 2026-07-28 in each request's `clientCapabilities`. The card learns the
 * decision and the secret that answers it from the result's `_meta` (CARD_META_KEY), which a host
 * hands the app (`ui/notifications/tool-result` carries the whole CallToolResult) and never puts in
 * the model's context; the agent alone checks that secret (agent/decisions/card.ts).
 * Pure: constants and shapes, no I/O.
 */
import { z } from 'zod';
import { WireDecision } from '../decisions.ts';
import { CARD_HTML } from './card-html.ts';

/** The extension's identifier in client capabilities (ext-apps `EXTENSION_ID`). */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** The MIME type of an MCP App's HTML (ext-apps `RESOURCE_MIME_TYPE`). */
export const CARD_MIME = 'text/html;profile=mcp-app';
/** The card's resource. */
export const CARD_URI = 'ui://vimrelay/decision';
/** Where a result's `_meta` carries what the card shows and the secret that answers it. */
export const CARD_META_KEY = 'vimrelay/card';

/** What a call's result gives the card (in `_meta[CARD_META_KEY]`). */
export const CardMeta = z.strictObject({
  decision: WireDecision,
  /** The secret that answers this decision once (agent/decisions/card.ts `CardKeys`). */
  token: z.string().min(1).max(600),
});
export type CardMeta = z.infer<typeof CardMeta>;

/** Whether `capabilities` (a client's) declare MCP Apps with the card's MIME type. */
export function uiDeclared(capabilities: unknown): boolean {
  if (typeof capabilities !== 'object' || capabilities === null) return false;
  const extensions = (capabilities as { extensions?: unknown }).extensions;
  if (typeof extensions !== 'object' || extensions === null) return false;
  const ui = (extensions as Record<string, unknown>)[UI_EXTENSION];
  if (typeof ui !== 'object' || ui === null) return false;
  const mimeTypes = (ui as { mimeTypes?: unknown }).mimeTypes;
  // The extension says mimeTypes "must include" ours; a declaration without the list says nothing else.
  return mimeTypes === undefined || (Array.isArray(mimeTypes) && mimeTypes.includes(CARD_MIME));
}

/**
 * The card resource's `_meta.ui`: no outside domain of any kind (the card loads and fetches
 * nothing), and the sandbox origin ChatGPT asks servers to name.
 */
const RESOURCE_UI = {
  csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
  domain: 'vimrelay-decision.local',
  prefersBorder: true,
} as const;

/** `resources/list`'s answer: the card alone. */
export function cardResources(): { resources: { uri: string; name: string; title: string; mimeType: string; _meta: Record<string, unknown> }[] } {
  return { resources: [{ uri: CARD_URI, name: 'decision', title: 'vimrelay decision', mimeType: CARD_MIME, _meta: { ui: RESOURCE_UI } }] };
}

/** `resources/read`'s answer for the card; undefined for any other URI. */
export function readCard(uri: string): { contents: { uri: string; mimeType: string; text: string; _meta: Record<string, unknown> }[] } | undefined {
  if (uri !== CARD_URI) return undefined;
  return { contents: [{ uri: CARD_URI, mimeType: CARD_MIME, text: CARD_HTML, _meta: { ui: RESOURCE_UI } }] };
}

/** A listed tool's `_meta` for a client that renders apps: the card goes with its result. */
export const CARD_TOOL_META = { ui: { resourceUri: CARD_URI } } as const;
