/**
 * What one request sees of the catalog: its endpoint's toolset (protocol/toolsets.ts) narrowed by
 * the permission classes its grant allows (its token's scopes on the relay; every class locally,
 * where the agent's policy decides). Spec 2026-07-28 "server/tools": the set of tools "MAY vary by
 * the authorization presented on the request — for example, returning only the tools the caller's
 * granted scopes permit".
 *
 *   - listed: a tool of the toolset whose plainest call (no optional argument) the view allows; a
 *     tool allowed only that far (lsp_rename on a read grant) says so in its description;
 *   - callable: a tool of the toolset; a call of it needing a class outside the toolset is refused
 *     here (`classRefusal`), one needing a class the grant lacks is the relay's 403 (step-up), so
 *     that a client can ask for it.
 * Pure; the listed forms are memoised per toolset and allowed classes.
 */
import { fail, type ToolOutcome } from './errors.ts';
import { listedTool, type ListedTool } from './result.ts';
import { PERMISSION_CLASSES, permissionFor, type PermissionClass, type ToolSpec } from './tool.ts';
import { WHOLE_CATALOG, type Toolset } from './toolsets.ts';

export interface CatalogView {
  readonly toolset: Toolset;
  /** The classes the request's grant allows. */
  readonly scopes: readonly PermissionClass[];
}

/** The whole catalog with every class: `vimrelay serve` without `--tools`, and the catalog's own checks. */
export const WHOLE_VIEW: CatalogView = { toolset: WHOLE_CATALOG, scopes: PERMISSION_CLASSES };

/** The classes a call through `view` may need: its toolset's that its grant allows. */
export function allowedClasses(view: CatalogView): PermissionClass[] {
  return view.toolset.classes.filter((c) => view.scopes.includes(c));
}

/**
 * The sentence a tool listed for its plainest calls only adds to its description: which class it
 * may not use here, and why (the grant, which the user can widen when asked; or the toolset).
 */
function limitedNote(spec: ToolSpec, toolset: Toolset): string {
  const why = toolset.classes.includes(spec.permission)
    ? `this connection's grant lacks the ${spec.permission} scope, so a call that needs it (see the arguments) is refused until the user grants it`
    : `this endpoint's toolset (${toolset.label}) serves no ${spec.permission} calls, so a call that needs one (see the arguments) is refused`;
  return ` Preview only here: ${why}.`;
}

const memo = new Map<string, ListedTool[]>();

/** The tools `view` lists, in catalog order, as tools/list advertises them. */
export function listedFor(view: CatalogView): ListedTool[] {
  const allowed = allowedClasses(view);
  const key = `${view.toolset.label}|${allowed.join(' ')}`;
  let tools = memo.get(key);
  if (!tools) {
    tools = view.toolset.tools
      .filter((spec) => allowed.includes(permissionFor(spec, {})))
      .map((spec) => {
        const listed = listedTool(spec);
        return allowed.includes(spec.permission) ? listed : { ...listed, description: listed.description + limitedNote(spec, view.toolset) };
      });
    memo.set(key, tools);
  }
  return tools;
}

/** The catalog entry of `name` when `toolset` serves it; undefined for a tool unknown there. */
export function servedTool(toolset: Toolset, name: string): ToolSpec | undefined {
  return toolset.tools.find((spec) => spec.name === name);
}

/**
 * The refusal of a call of `spec` with `args` that needs a class the toolset does not serve (an
 * lsp_rename that applies, through the read set), or null. No grant would let it through here, so
 * it is a tool error naming what to connect instead, not a request for more scopes.
 */
export function classRefusal(toolset: Toolset, spec: ToolSpec, args: unknown): ToolOutcome | null {
  const needed = permissionFor(spec, args);
  if (toolset.classes.includes(needed)) return null;
  return fail('PERMISSION_DENIED', `This call of ${spec.name} needs the ${needed} permission, which this endpoint's toolset (${toolset.label}) does not serve.`, {
    hint: `Make the call without what needs ${needed} (a preview), or ask the user to connect a toolset that serves it, or the whole catalog (the endpoint without a toolset).`,
  });
}
