/**
 * `vimrelay enroll` and `vimrelay token create`: credentials made directly through the relay's
 * admin API with the owner secret (from $VIMRELAY_OWNER_SECRET, never the command line). `enroll`
 * creates this machine's device without the pairing dance, for scripts and the owner's own machine.
 */
import { hostname } from 'node:os';
import { ALL_SCOPES } from '../../protocol/scopes.ts';
import { PERMISSION_CLASSES, PermissionClass } from '../../protocol/tool.ts';
import { saveRelayCredentials } from '../config/credentials.ts';
import { paths } from '../config/paths.ts';
import { normaliseRelayUrl, requireSecureRelay } from '../config/relay-url.ts';
import { createDevice, mintToken } from '../relay/admin.ts';
import { checkedName, deviceName } from './names.ts';
import { closest } from './suggest.ts';
import { printable } from './printable.ts';

/** The owner secret from $VIMRELAY_OWNER_SECRET; throws with what to do when it is unset. */
export function ownerSecret(): string {
  const secret = process.env.VIMRELAY_OWNER_SECRET;
  if (!secret) throw new Error('set VIMRELAY_OWNER_SECRET to the relay\'s owner secret');
  return secret;
}

function requireRelay(relay: string | undefined, insecure: boolean | undefined): string {
  if (!relay) throw new Error('--relay URL is required');
  return requireSecureRelay(normaliseRelayUrl(relay), insecure ?? false);
}

/**
 * `--scopes` as a list of scopes (comma-separated, spaces around them allowed). Throws one line
 * naming the first unknown scope, the nearest known one and every valid one; an empty list, or an
 * empty scope in it, is refused rather than read as "every scope".
 */
export function parseScopeList(text: string): PermissionClass[] {
  const valid = PERMISSION_CLASSES.join(', ');
  const scopes = text.split(',').map((s) => s.trim());
  if (scopes.includes('')) throw new Error(`--scopes takes a comma-separated list of ${valid}`);
  return scopes.map((scope) => {
    const known = PermissionClass.safeParse(scope);
    if (known.success) return known.data;
    const meant = closest(scope, PERMISSION_CLASSES);
    throw new Error(`unknown scope "${scope}" in --scopes; ${meant ? `did you mean \`${meant}\`? The scopes are` : 'the scopes are'} ${valid}`);
  });
}

export async function enrollCommand(opts: { relay?: string; insecure?: boolean; name?: string }): Promise<number> {
  const relay = requireRelay(opts.relay, opts.insecure);
  const enrolled = await createDevice(relay, ownerSecret(), deviceName(opts.name), hostname());
  saveRelayCredentials(paths().credentials, relay, { device_credential: enrolled.credential });
  process.stdout.write(`enrolled as device ${printable(enrolled.device.name)}; credential saved\n`);
  return 0;
}

/** `vimrelay token create`, its one action. */
export async function tokenCommand(values: { relay?: string; insecure?: boolean; name?: string; scopes?: string; 'ttl-days'?: string }): Promise<number> {
  if (!values.name) throw new Error('--name is required');
  const name = checkedName(values.name);
  const scopes = values.scopes === undefined ? [...ALL_SCOPES] : parseScopeList(values.scopes);
  const days = values['ttl-days'] === undefined ? undefined : Number(values['ttl-days']);
  if (days !== undefined && !(Number.isInteger(days) && days > 0)) throw new Error('--ttl-days must be a positive whole number');
  const minted = await mintToken(requireRelay(values.relay, values.insecure), ownerSecret(), {
    kind: 'access',
    name,
    scopes,
    ...(days === undefined ? {} : { ttl_seconds: days * 86_400 }),
  });
  process.stdout.write(`Access token: ${printable(minted.token)}\n`);
  process.stderr.write(`scopes: ${minted.scopes.map(printable).join(' ')}; expires ${printable(minted.expires_at)}\n`);
  return 0;
}
