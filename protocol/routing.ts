/**
 * Routing decisions, pure: whether a token's scopes allow a tool, which online editor or agent a
 * call goes to, and how editors are named account-wide. `routeCall` is the one routing step of a
 * validated tools/call, used by the relay's Hub and by the agent's local mode alike
 * (ARCHITECTURE.md "One call, end to end"). Takes plain data, returns values or tool outcomes;
 * the callers do the I/O.
 */
import { fail, type ToolOutcome } from './errors.ts';
import { permissionFor, type ToolSpec } from './tool.ts';
import { listEditors } from './tools/list-editors.ts';
import type { EditorInfo } from './tools/common.ts';
import type { WireEditor } from './wire.ts';

/** An editor online through a connected device. */
export interface OnlineEditor {
  readonly deviceId: string;
  /** The agent's own id for it (what a `call` message carries). */
  readonly localId: string;
  /** As list_editors shows it; `info.id` is the public id. */
  readonly info: EditorInfo;
  /** When its process started (Unix seconds), for `info.uptime_s` as of each list. */
  readonly startedAt: number | null;
}

/** An editor as a device's agent reported it on the wire, named account-wide. */
export function onlineEditor(deviceId: string, deviceName: string, wire: WireEditor, nowMs: number = Date.now()): OnlineEditor {
  const startedAt = wire.started_at ?? null;
  return {
    deviceId,
    localId: wire.id,
    startedAt,
    info: {
      id: publicEditorId(deviceName, wire.id),
      device: deviceName,
      kind: wire.kind,
      version: wire.version,
      name: wire.name,
      cwd: wire.cwd,
      current_file: wire.current_file,
      pid: wire.pid,
      waiting_for: wire.waiting_for ?? null,
      ui: wire.ui ?? null,
      uptime_s: uptime(startedAt, nowMs),
    },
  };
}

/** Whole seconds from `startedAt` (Unix seconds) to `nowMs`, never negative (clocks differ); null when unknown. */
export function uptime(startedAt: number | null, nowMs: number): number | null {
  return startedAt === null ? null : Math.max(0, Math.floor(nowMs / 1000) - startedAt);
}

/** The account-wide id of an editor: `<device name>/<agent's local id>`, e.g. `laptop/nvim-4242`. */
export function publicEditorId(deviceName: string, localId: string): string {
  return `${deviceName}/${localId}`;
}

/**
 * PERMISSION_DENIED unless the permission class a call of the tool with `args` needs
 * (tool.ts `permissionFor`) is among the token's scopes; else null.
 */
export function checkScope(tool: ToolSpec, scopes: readonly string[], args: unknown): ToolOutcome | null {
  const permission = permissionFor(tool, args);
  if (scopes.includes(permission)) return null;
  return fail('PERMISSION_DENIED', `This client's token does not grant the "${permission}" scope that ${tool.name} needs.`, {
    hint: `Ask the owner for a token with the "${permission}" scope, or use a tool this token allows.`,
    required_scope: permission,
  });
}

export type Resolution = { ok: true; editor: OnlineEditor } | { ok: false; outcome: ToolOutcome };

/** The NO_EDITOR answer when no one says more about why none is online. */
const NO_EDITOR = fail('NO_EDITOR', 'No editor is online: no agent is connected, or its agent reports no editors.');

/**
 * Picks the editor a call goes to. None online: `none` (default: NO_EDITOR), whatever was asked. `requested`
 * omitted: the only editor, or AMBIGUOUS_EDITOR listing the ids. Given: the editor with that public
 * id, else the one editor whose agent-local id it is (AMBIGUOUS_EDITOR if several devices have
 * it), else EDITOR_NOT_FOUND listing the ids.
 */
export function resolveEditor(online: readonly OnlineEditor[], requested: string | undefined, none: ToolOutcome = NO_EDITOR): Resolution {
  const ids = online.map((e) => e.info.id);
  if (online.length === 0) return { ok: false, outcome: none };
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
export function listEditorsOutcome(online: readonly OnlineEditor[], nowMs: number = Date.now()): ToolOutcome {
  return { ok: true, data: { editors: online.map((e) => ({ ...e.info, uptime_s: uptime(e.startedAt, nowMs) })), count: online.length } };
}

/*
 * Agent-level tools (catalog routing 'agent', e.g. connect_editor) go to a device, chosen by their
 * `device` argument. No new error codes: to a client, "no agent connected" calls for what
 * NO_EDITOR already says (start the agent), several agents for what AMBIGUOUS_EDITOR says (name
 * one), and an unknown device for what EDITOR_NOT_FOUND says (pick a listed one); the messages and
 * hints name devices, and the `devices` detail lists their names.
 */

/** A device whose agent is connected and has said hello. */
export interface OnlineDevice {
  readonly deviceId: string;
  /** Unique per account; list_editors shows it as each editor's `device`. */
  readonly name: string;
}

export type DeviceResolution = { ok: true; device: OnlineDevice } | { ok: false; outcome: ToolOutcome };

/**
 * Picks the device an agent-level call goes to. None connected: NO_EDITOR. `requested` omitted:
 * the only device, or AMBIGUOUS_EDITOR. Given: the device with that name, else
 * EDITOR_NOT_FOUND. Failures list the device names in `devices`.
 */
export function resolveDevice(online: readonly OnlineDevice[], requested: string | undefined): DeviceResolution {
  const devices = online.map((d) => d.name);
  if (online.length === 0) {
    return {
      ok: false,
      outcome: fail('NO_EDITOR', 'No vimrelay agent is connected.', {
        devices,
        hint: 'Start `vimrelay agent` on the machine running Neovim (after `vimrelay enroll` there), then retry.',
      }),
    };
  }
  if (requested === undefined) {
    const [only] = online;
    if (online.length === 1 && only) return { ok: true, device: only };
    return {
      ok: false,
      outcome: fail('AMBIGUOUS_EDITOR', `${online.length} agents are connected; pass \`device\` with one of their names.`, {
        devices,
        hint: 'Pass `device`: the machine whose Neovim you want, one of `devices` (list_editors shows each editor\'s device).',
      }),
    };
  }
  const found = online.find((d) => d.name === requested);
  if (found) return { ok: true, device: found };
  return {
    ok: false,
    outcome: fail('EDITOR_NOT_FOUND', `No connected agent is on a device named "${requested}".`, {
      devices,
      hint: 'Pass one of `devices` as `device`; a device that is not listed has no agent connected.',
    }),
  };
}

/** What a call can be routed to: the editors and the agents (devices) online now. */
export interface Online {
  readonly editors: readonly OnlineEditor[];
  readonly devices: readonly OnlineDevice[];
  /**
   * The answer to an editor call when no editor is online, when the caller knows better than the
   * default NO_EDITOR what to say (a device reconnecting; local mode's own hint).
   */
  readonly noEditor?: ToolOutcome;
}

/**
 * Where a validated call goes. `answer`: answered here, with no agent (list_editors, a refused
 * scope, no such editor or device). `agent`: sent to the agent of `deviceId`, for its editor
 * `localId` ('' for an agent-level tool), with the call's arguments minus the one that chose the
 * target (`editor` or `device`). `target` names what the call reaches, for the call log: the
 * editor's public id or the device's name ('' when none).
 */
export type Route =
  | { readonly kind: 'answer'; readonly outcome: ToolOutcome; readonly target: string }
  | {
      readonly kind: 'agent';
      readonly deviceId: string;
      readonly localId: string;
      readonly args: Record<string, unknown>;
      readonly target: string;
      /** The error when the device turns out to have no live link: nothing was sent. */
      readonly offline: string;
    };

/**
 * Routes one call whose arguments passed `spec.input`: the token's scopes first (a scope it lacks
 * is PERMISSION_DENIED whatever else), then by the tool's routing: `hub` tools are answered from
 * `online`, `editor` tools go to the editor `args.editor` names (resolveEditor), `agent` tools to
 * the device `args.device` names (resolveDevice).
 */
export function routeCall(spec: ToolSpec, args: Record<string, unknown>, scopes: readonly string[], online: Online): Route {
  const route = resolveRoute(spec, args, online);
  const denied = checkScope(spec, scopes, args);
  return denied ? { kind: 'answer', outcome: denied, target: route.target } : route;
}

function resolveRoute(spec: ToolSpec, args: Record<string, unknown>, online: Online): Route {
  switch (spec.routing) {
    case 'hub':
      if (spec.name === listEditors.name) return { kind: 'answer', outcome: listEditorsOutcome(online.editors), target: '' };
      return { kind: 'answer', outcome: fail('UNSUPPORTED', `${spec.name} is not served here.`), target: '' };
    case 'agent': {
      const { device, ...rest } = args;
      const route = resolveDevice(online.devices, typeof device === 'string' ? device : undefined);
      if (!route.ok) return { kind: 'answer', outcome: route.outcome, target: '' };
      const name = route.device.name;
      return { kind: 'agent', deviceId: route.device.deviceId, localId: '', args: rest, target: name, offline: `Device "${name}" is not connected; nothing was sent.` };
    }
    case 'editor': {
      const { editor, ...rest } = args;
      const requested = typeof editor === 'string' ? editor : undefined;
      const route = resolveEditor(online.editors, requested, online.noEditor);
      if (!route.ok) return { kind: 'answer', outcome: route.outcome, target: requested ?? '' };
      const id = route.editor.info.id;
      return { kind: 'agent', deviceId: route.editor.deviceId, localId: route.editor.localId, args: rest, target: id, offline: `Device of editor "${id}" is not connected; nothing was sent.` };
    }
  }
}
