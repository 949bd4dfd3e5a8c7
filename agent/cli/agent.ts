/**
 * `vimrelay agent`: serve this machine's editors to the relay until interrupted. With `--service`
 * (how the login service runs it, agent/service/units.ts) it exits 0 when retrying cannot help
 * (the relay refused or revoked the device, a newer agent of this device took its place, or
 * another agent holds the device and this one may not take over), so that the service manager
 * does not restart it: restarted, it would push the newer one out, or knock at its door forever.
 * Otherwise: 1 refused or revoked, 4 replaced, 5 refused for another agent.
 */
import { defaultRelay, relayCredentials } from '../config/credentials.ts';
import { readAgentConfig } from '../config/agent-config.ts';
import { paths } from '../config/paths.ts';
import { ensurePrivateDir } from '../config/private-file.ts';
import { normaliseRelayUrl, requireSecureRelay } from '../config/relay-url.ts';
import { defaultSocketDirs } from '../editors/nvim/discovery.ts';
import { createEditorSource } from '../editors/source.ts';
import { createLogger } from '../log.ts';
import { openCallGuard } from '../policy/setup.ts';
import { ownPlaces } from '../policy/own-files.ts';
import { loadTakeoverProof } from '../relay/takeover.ts';
import { startAgent } from '../run.ts';
import { vimListenerOption } from './ports.ts';
import { interrupted } from './signals.ts';
import { printable } from './printable.ts';
import { reportCollections } from '../calls/quiet-collect.ts';

export async function agentCommand(opts: { relay?: string; insecure?: boolean; 'discover-dir'?: string[]; 'vim-port'?: string; verbose?: boolean; service?: boolean }): Promise<number> {
  const stopped = interrupted();
  const p = paths();
  const chosen = opts.relay ? normaliseRelayUrl(opts.relay) : defaultRelay(p.credentials);
  if (!chosen) {
    throw new Error(`no relay given and no single paired relay in ${p.credentials}; pass --relay URL, or pair first: vimrelay pair <relay-url>`);
  }
  const relay = requireSecureRelay(chosen, opts.insecure ?? false);
  const credential = relayCredentials(p.credentials, relay).device_credential;
  if (!credential) {
    // Files written before device credentials held a `device_token`, which is ignored now.
    throw new Error(`no device credential for ${relay} (tokens from older versions no longer work); pair this machine: vimrelay pair ${relay}`);
  }
  // Before anything starts: an invalid policy file stops the agent here.
  const guard = openCallGuard(p, ownPlaces(process.env));
  ensurePrivateDir(p.stateDir);
  const logger = createLogger({ level: opts.verbose ? 'debug' : 'info', file: p.log });
  reportCollections((fields) => logger.debug('calls went quiet: collected what they left', fields));
  const dirs = opts['discover-dir'] ?? readAgentConfig(p.config).socketDirs ?? defaultSocketDirs();
  const editors = createEditorSource({ logger, vim: vimListenerOption(opts['vim-port'], { role: 'agent', relay }), dirs });
  const takeoverProof = loadTakeoverProof(p.takeoverKey, relay);
  const agent = startAgent({ relayUrl: relay, deviceCredential: credential, takeoverProof, editors, guard, logger, statusFile: p.status, watching: dirs });
  const end = await Promise.race([agent.done, stopped]);
  await agent.stop();
  if (end === 'interrupted') return 0;
  if (end.kind === 'rejected') {
    process.stderr.write(`vimrelay: ${printable(String(end.reason))}; pair this machine again: vimrelay pair ${printable(relay)}\n`);
    return opts.service ? 0 : 1;
  }
  if (end.kind === 'replaced') {
    process.stderr.write(`vimrelay: ${printable(String(end.reason))}.\n`);
    return opts.service ? 0 : 4;
  }
  if (end.kind === 'refused') {
    process.stderr.write(`vimrelay: ${end.reason}.\n`);
    return opts.service ? 0 : 5;
  }
  return 0;
}
