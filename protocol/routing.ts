/**
 * Routing decisions, pure: whether a token's scopes allow a tool, which online editor a call goes
 * to, and how editors are named account-wide. Takes plain data, returns values or tool outcomes;
 * the Hub (and the agent's local server) do the I/O.
 */
import { fail, type ToolOutcome } from './errors.ts';
import type { ToolSpec } from './tool.ts';
import type { EditorInfo } from './tools/common.ts';

/** An editor online through a connected device. */
export interface OnlineEditor {
  readonly deviceId: string;
  /** The agent's own id for it (what a `call` message carries). */
  readonly localId: string;
  /** As list_editors shows it; `info.id` is the public id. */
  readonly info: EditorInfo;
}

/** The account-wide id of an editor: `<device name>/<agent's local id>`, e.g. `laptop/nvim-4242`. */
export function publicEditorId(deviceName: string, localId: string): string {
  return `${deviceName}/${localId}`;
}

/** PERMISSION_DENIED unless the tool's permission class is among the token's scopes; else null. */
export function checkScope(tool: ToolSpec, scopes: readonly string[]): ToolOutcome | null {
  if (scopes.includes(tool.permission)) return null;
  return fail('PERMISSION_DENIED', `This client's token does not grant the "${tool.permission}" scope that ${tool.name} needs.`, {
    hint: `Ask the owner for a token with the "${tool.permission}" scope, or use a tool this token allows.`,
    required_scope: tool.permission,
  });
}

export type Resolution = { ok: true; editor: OnlineEditor } | { ok: false; outcome: ToolOutcome };

/**
 * Picks the editor a call goes to. None online: NO_EDITOR, whatever was asked. `requested`
 * omitted: the only editor, or AMBIGUOUS_EDITOR listing the ids. Given: the editor with that public
 * id, else the one editor whose agent-local id it is (AMBIGUOUS_EDITOR if several devices have
 * it), else EDITOR_NOT_FOUND listing the ids.
 */
export function resolveEditor(online: readonly OnlineEditor[], requested: string | undefined): Resolution {
  const ids = online.map((e) => e.info.id);
  if (online.length === 0) {
    return { ok: false, outcome: fail('NO_EDITOR', 'No editor is online: no agent is connected, or its agent reports no editors.') };
  }
  if (requested === undefined) {
    const [only] = online;
    if (online.length === 1 && only) return { ok: true, editor: only };
    return {
      ok: false,
      outcome: fail('AMBIGUOUS_EDITOR', `${online.length} editors are online; pass \`editor\` with one of their ids.`, { editors: ids }),
    };
  }
  const exact = online.find((e) => e.info.id === requested);
  if (exact) return { ok: true, editor: exact };
  const local = online.filter((e) => e.localId === requested);
  const [unique] = local;
  if (local.length === 1 && unique) return { ok: true, editor: unique };
  if (local.length > 1) {
    return {
      ok: false,
      outcome: fail('AMBIGUOUS_EDITOR', `"${requested}" names editors on several devices; pass the full id.`, {
        editors: local.map((e) => e.info.id),
      }),
    };
  }
  return { ok: false, outcome: fail('EDITOR_NOT_FOUND', `No online editor has the id "${requested}".`, { editors: ids }) };
}

/** The list_editors result (answered by the Hub, no editor involved). */
export function listEditorsOutcome(online: readonly OnlineEditor[]): ToolOutcome {
  return { ok: true, data: { editors: online.map((e) => e.info), count: online.length } };
}
