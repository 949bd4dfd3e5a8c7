/**
 * What the Hub says about devices whose agents were online a moment ago and are not now (a relay
 * restart, a dropped link, a missed heartbeat): they are reconnecting, so "no editor" or "no such
 * editor" would mislead a client that used them seconds ago. Pure: takes the devices with their
 * last-seen times and the time, returns the answers (PROTOCOL.md "Error codes").
 */
import { fail, type ToolOutcome } from '../../protocol/index.ts';

/** How long after it was last seen a device that is not online counts as reconnecting (ms). */
export const RECONNECTING_WINDOW_MS = 120_000;

/** A device that is offline now, and when its agent was last heard from. */
export interface LostDevice {
  readonly name: string;
  readonly lastSeenMs: number;
}

/** The devices of `devices` last seen within RECONNECTING_WINDOW_MS of `nowMs`, most recent first. */
export function reconnecting(devices: readonly LostDevice[], nowMs: number): LostDevice[] {
  return devices.filter((d) => nowMs - d.lastSeenMs <= RECONNECTING_WINDOW_MS).sort((a, b) => b.lastSeenMs - a.lastSeenMs);
}

const HINT =
  'Wait a few seconds and call list_editors again: an agent reconnects by itself once the relay and its machine can reach each other. ' +
  'If it stays offline, ask the user to check that `vimrelay agent` still runs on that machine.';

function ago(device: LostDevice, nowMs: number): string {
  return `device "${device.name}" was online ${Math.max(0, Math.round((nowMs - device.lastSeenMs) / 1000))} s ago`;
}

/** NO_EDITOR saying which devices are reconnecting; undefined when none is. */
export function noEditorWhileReconnecting(lost: readonly LostDevice[], nowMs: number): ToolOutcome | undefined {
  const [latest] = lost;
  if (!latest) return undefined;
  const others = lost.length > 1 ? ` (and ${lost.length - 1} more)` : '';
  return fail('NO_EDITOR', `No editor is online right now: ${ago(latest, nowMs)}${others} and its agent is reconnecting.`, {
    reconnecting: lost.map((d) => d.name),
    hint: HINT,
  });
}

/**
 * EDITOR_OFFLINE for an editor id (`<device>/<local id>`) of a device that is reconnecting, when
 * no online editor has that id; undefined otherwise. Nothing was sent.
 */
export function editorOfReconnectingDevice(requested: string, lost: readonly LostDevice[], nowMs: number): ToolOutcome | undefined {
  const device = lost.find((d) => requested.startsWith(`${d.name}/`));
  if (!device) return undefined;
  return fail('EDITOR_OFFLINE', `Editor "${requested}" is not online: its ${ago(device, nowMs)} and its agent is reconnecting; nothing was sent.`, { hint: HINT });
}
