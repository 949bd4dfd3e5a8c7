/** `vimrelay enroll` and `vimrelay token create`: mint credentials through the relay's admin route. */
import { hostname } from 'node:os';
import { ALL_SCOPES, PermissionClass } from '../../protocol/index.ts';
import { normaliseRelayUrl, saveRelayCredentials } from '../config/credentials.ts';
import { paths } from '../config/paths.ts';
import { mintToken } from '../relay/admin.ts';

function ownerSecret(): string {
  const secret = process.env.VIMRELAY_OWNER_SECRET;
  if (!secret) throw new Error('set VIMRELAY_OWNER_SECRET to the relay\'s owner secret');
  return secret;
}

function requireRelay(relay: string | undefined): string {
  if (!relay) throw new Error('--relay URL is required');
  return normaliseRelayUrl(relay);
}

export async function enrollCommand(opts: { relay?: string; name?: string }): Promise<number> {
  const relay = requireRelay(opts.relay);
  const minted = await mintToken(relay, ownerSecret(), { kind: 'device', name: opts.name ?? hostname() });
  saveRelayCredentials(paths().credentials, relay, { device_token: minted.token });
  process.stdout.write(`enrolled as device ${minted.name}; credential saved (expires ${minted.expires_at})\n`);
  return 0;
}

export async function tokenCommand(parsed: {
  positionals: string[];
  values: { relay?: string; name?: string; scopes?: string; 'ttl-days'?: string };
}): Promise<number> {
  if (parsed.positionals[0] !== 'create') throw new Error('usage: vimrelay token create --relay URL --name NAME');
  const { values } = parsed;
  if (!values.name) throw new Error('--name is required');
  const scopes = values.scopes ? values.scopes.split(',').map((s) => PermissionClass.parse(s.trim())) : [...ALL_SCOPES];
  const days = values['ttl-days'] === undefined ? undefined : Number(values['ttl-days']);
  if (days !== undefined && !(Number.isInteger(days) && days > 0)) throw new Error('--ttl-days must be a positive whole number');
  const minted = await mintToken(requireRelay(values.relay), ownerSecret(), {
    kind: 'access',
    name: values.name,
    scopes,
    ...(days === undefined ? {} : { ttl_seconds: days * 86_400 }),
  });
  process.stdout.write(`Access token: ${minted.token}\n`);
  process.stderr.write(`scopes: ${minted.scopes.join(' ')}; expires ${minted.expires_at}\n`);
  return 0;
}
