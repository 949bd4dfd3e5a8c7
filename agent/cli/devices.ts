/**
 * `vimrelay devices [--relay URL] [--revoke ID]`: lists the relay's devices with their hostname,
 * state, last-seen time and last refused connection (someone with the credential but not the
 * agent's takeover key), or revokes one (it is disconnected at once and its credential stops
 * working). Uses the owner's admin API, with the owner secret from $VIMRELAY_OWNER_SECRET as
 * `vimrelay token` does.
 */
import { defaultRelay } from '../config/credentials.ts';
import { paths } from '../config/paths.ts';
import { normaliseRelayUrl, requireSecureRelay } from '../config/relay-url.ts';
import { listDevices, revokeDevice, type DeviceRecord } from '../relay/admin.ts';
import { ownerSecret } from './tokens.ts';
import { printable } from './printable.ts';

/** `2026-12-01T02:15:01.000Z` as `2026-12-01 02:15:01Z`; `never` for null. */
function when(isoTime: string | null): string {
  return isoTime === null ? 'never' : `${isoTime.slice(0, 10)} ${isoTime.slice(11, 19)}Z`;
}

/** The last connection refused as the device (its credential without its agent's takeover key): when, and from where. */
function refused(d: DeviceRecord): string {
  const at = d.last_refused_at ?? null;
  return at === null ? 'never' : `${when(at)} from ${d.last_refused_from ?? 'unknown'}`;
}

function state(d: DeviceRecord): string {
  return d.revoked ? 'revoked' : d.online ? 'online' : 'offline';
}

/** The devices as an aligned table, one per line; the relay's text through printable. */
export function formatDevices(devices: readonly DeviceRecord[]): string {
  if (devices.length === 0) return 'No devices. Pair one with: vimrelay pair <relay-url>\n';
  const rows = [
    ['ID', 'NAME', 'HOSTNAME', 'STATE', 'LAST SEEN', 'LAST REFUSED'],
    ...devices.map((d) => [d.id, d.name, d.hostname ?? '-', state(d), when(d.last_seen_at), refused(d)].map(printable)),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n') + '\n';
}

export async function devicesCommand(opts: { relay?: string; insecure?: boolean; revoke?: string }): Promise<number> {
  const file = paths().credentials;
  const chosen = opts.relay ? normaliseRelayUrl(opts.relay) : defaultRelay(file);
  if (!chosen) throw new Error('--relay URL is required (no single paired relay to default to)');
  const relay = requireSecureRelay(chosen, opts.insecure ?? false);
  const secret = ownerSecret();
  if (opts.revoke !== undefined) {
    const revoked = await revokeDevice(relay, secret, opts.revoke);
    process.stdout.write(`revoked device "${printable(revoked.device.name)}" (${printable(revoked.device.id)}); ${revoked.disconnected} connection(s) closed\n`);
    return 0;
  }
  process.stdout.write(formatDevices(await listDevices(relay, secret)));
  return 0;
}
