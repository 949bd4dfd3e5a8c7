/**
 * Named toolsets: the parts of the catalog an endpoint may serve alone, so that a client pays
 * for the tools it uses (README "Toolsets"). The relay serves them at `/mcp/<set>[+<set>…]`,
 * `vimrelay serve` by `--tools <set>[+<set>…]`; plain `/mcp` serves the whole catalog.
 *
 * A toolset is two things: which tools it lists (a rule over the catalog entry, never a list of
 * names, so that a new tool joins the sets its class, its name or its arguments put it in), and
 * which permission classes its calls may need. The second makes `read` mean reading: lsp_rename is
 * in the read set for its preview, and applying one through it is refused, whatever the grant.
 * What a request finally sees is the toolset narrowed by its grant (protocol/catalog-view.ts).
 *
 * Every set has list_editors, without which no other tool can be aimed, and review_status goes
 * with every set holding a tool that can send an edit to review (one that takes `review`). Pure:
 * no I/O, the catalog is data.
 */
import { PERMISSION_CLASSES, permissionFor, type PermissionClass, type ToolSpec } from './tool.ts';
import { TOOLS } from './tools/index.ts';

/** The toolsets, in the order a combined name is written (`read+lsp`). */
export const TOOLSET_NAMES = ['read', 'edit', 'lsp', 'exec', 'show'] as const;
export type ToolsetName = (typeof TOOLSET_NAMES)[number];

/** The separator of a combined name: `/mcp/read+lsp`, `--tools read+lsp`. */
export const TOOLSET_SEPARATOR = '+';

interface ToolsetRule {
  /** What it is for, in a few words (the dashboard and `--help` show it). */
  readonly about: string;
  /** Whether the catalog entry `spec` belongs to it (list_editors and review_status aside). */
  readonly includes: (spec: ToolSpec) => boolean;
  /** The permission classes a call through it may need: a call that needs another is refused. */
  readonly classes: readonly PermissionClass[];
}

/** A tool's plainest call: with no optional argument (lsp_rename: a preview). */
const plainest = (spec: ToolSpec): PermissionClass => permissionFor(spec, {});

const RULES: { readonly [N in ToolsetName]: ToolsetRule } = {
  // Every tool whose plainest call only reads: the buffers, the state, search, diagnostics, and
  // the lsp_* tools (lsp_rename as a preview).
  read: { about: 'read buffers, state, search, diagnostics and LSP navigation; no edits', includes: (s) => plainest(s) === 'read', classes: ['read'] },
  // The write, open and save classes: every edit, display-only marks, opening and saving files.
  edit: { about: 'edit buffers (with reviews), mark them, open and save files', includes: (s) => ['write', 'open', 'save'].includes(s.permission), classes: ['read', 'write', 'open', 'save'] },
  // Code navigation through the editor's language servers, by name; lsp_rename, lsp_code_actions and
  // lsp_format may apply (a code action's server command needs exec, which this set does not serve).
  lsp: { about: 'code navigation through the language servers; renames, code actions, formatting', includes: (s) => s.name.startsWith('lsp_'), classes: ['read', 'write'] },
  // Ex commands, keystrokes, terminals.
  exec: { about: 'Ex commands, keystrokes and terminals', includes: (s) => s.permission === 'exec' || s.permission === 'terminal', classes: ['read', 'exec', 'terminal'] },
  // The write class's display-only tools (they change no text): cursor, highlights, notes.
  show: { about: 'point at code: move the cursor, highlight, add notes; no text changes', includes: (s) => s.permission === 'write' && !s.annotations.destructiveHint, classes: ['read', 'write'] },
};

/** What a toolset serves. */
export interface Toolset {
  /** Its sets in TOOLSET_NAMES order; empty for the whole catalog. */
  readonly names: readonly ToolsetName[];
  /** `read+lsp`; '' for the whole catalog. */
  readonly label: string;
  /** Its tools, in catalog order. */
  readonly tools: readonly ToolSpec[];
  /** The permission classes its calls may need (RFC 9728 `scopes_supported` of its URL). */
  readonly classes: readonly PermissionClass[];
  /** The classes of its tools' plainest calls: what a client asks for first (the 401's `scope`). */
  readonly plainClasses: readonly PermissionClass[];
}

/** Whether `spec` takes a `review` argument: it can send an edit to review. */
const reviewable = (spec: ToolSpec): boolean => 'review' in spec.input.shape;

const inOrder = <T>(order: readonly T[], items: Iterable<T>): T[] => {
  const wanted = new Set(items);
  return order.filter((item) => wanted.has(item));
};

/** The toolset of `names` (in TOOLSET_NAMES order) over `catalog` (the catalog's tools, in its order). */
export function toolsetOf(names: readonly ToolsetName[], catalog: readonly ToolSpec[] = TOOLS): Toolset {
  const rules = names.map((name) => RULES[name]);
  const members = catalog.filter((spec) => rules.some((rule) => rule.includes(spec)));
  const tools = catalog.filter(
    (spec) => members.includes(spec) || spec.name === 'list_editors' || (spec.name === 'review_status' && members.some(reviewable)),
  );
  const classes = inOrder(PERMISSION_CLASSES, rules.flatMap((rule) => rule.classes));
  return { names, label: names.join(TOOLSET_SEPARATOR), tools, classes, plainClasses: inOrder(classes, tools.map(plainest)) };
}

/** The whole catalog, as plain `/mcp` and `vimrelay serve` without `--tools` serve it. */
export const WHOLE_CATALOG: Toolset = {
  names: [],
  label: '',
  tools: TOOLS,
  classes: PERMISSION_CLASSES,
  plainClasses: inOrder(PERMISSION_CLASSES, TOOLS.map(plainest)),
};

export type ParsedToolset = { ok: true; toolset: Toolset } | { ok: false; message: string };

const KNOWN = new Set<string>(TOOLSET_NAMES);

/**
 * The toolset a name like `read+lsp` gives (the sets in any order, each once or more), or why
 * none: an empty name, or one that is not a toolset. Case matters: URLs are compared exactly.
 */
export function parseToolset(text: string): ParsedToolset {
  const parts = text.split(TOOLSET_SEPARATOR);
  const unknown = parts.filter((part) => !KNOWN.has(part));
  if (unknown.length > 0) {
    const what = unknown.some((u) => u === '') ? `"${text}" has an empty toolset name` : `no toolset is named ${unknown.map((u) => `"${u}"`).join(', ')}`;
    return { ok: false, message: `${what}. Toolsets: ${TOOLSET_NAMES.join(', ')}, joined with "${TOOLSET_SEPARATOR}" (read${TOOLSET_SEPARATOR}lsp).` };
  }
  return { ok: true, toolset: toolsetOf(inOrder(TOOLSET_NAMES, parts as ToolsetName[])) };
}

/** Each toolset alone, with what it is for (the dashboard lists them). */
export function toolsetList(): { name: ToolsetName; about: string; toolset: Toolset }[] {
  return TOOLSET_NAMES.map((name) => ({ name, about: RULES[name].about, toolset: toolsetOf([name]) }));
}
