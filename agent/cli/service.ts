/**
 * `vimrelay service install|uninstall|status [--relay URL]`: keeps `vimrelay agent` running at
 * login as a systemd user service (Linux) or a launchd agent (macOS), restarted on failure but not
 * once the device was revoked, replaced or refused for another agent (agent --service exits 0
 * then), logging to the state directory. `status` says whether it is installed, running and connected, and to which relay.
 */
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { defaultRelay, relayCredentials } from '../config/credentials.ts';
import { paths } from '../config/paths.ts';
import { normaliseRelayUrl, requireSecureRelay } from '../config/relay-url.ts';
import { liveStatus, readStatus } from '../config/status.ts';
import { serviceManager, type ServiceManager, type ServiceReport } from '../service/manager.ts';
import { SERVICE_LOG } from '../service/units.ts';
import { printable, printableLines } from './printable.ts';

export interface ServiceOptions {
  relay?: string;
  insecure?: boolean;
}

/** The XDG directories the service must see as the installing shell sees them. */
const CARRIED_ENV = ['XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_RUNTIME_DIR'] as const;

function manager(): ServiceManager {
  const found = serviceManager(process.platform, { home: process.env.HOME ?? homedir(), env: process.env, uid: process.getuid?.() ?? 0 });
  if (!found) throw new Error(`vimrelay service supports Linux (systemd) and macOS (launchd), not ${process.platform}; run \`vimrelay agent\` from your own login scripts`);
  return found;
}

function say(report: ServiceReport, done: string, unchanged: string): void {
  const lines = [`${report.changed ? done : unchanged}: ${printable(report.file)}`];
  if (report.note) lines.push(printableLines(report.note));
  process.stdout.write(lines.join('\n') + '\n');
}

export function serviceCommand(action: string | undefined, opts: ServiceOptions): number {
  switch (action) {
    case 'install': {
      const p = paths();
      const chosen = opts.relay ? normaliseRelayUrl(opts.relay) : defaultRelay(p.credentials);
      if (!chosen) throw new Error(`no relay given and no single paired relay in ${p.credentials}; pass --relay URL, or pair first: vimrelay pair <relay-url>`);
      const insecure = opts.insecure ?? false;
      const relay = requireSecureRelay(chosen, insecure);
      if (!relayCredentials(p.credentials, relay).device_credential) throw new Error(`this machine is not paired with ${relay}; run: vimrelay pair ${relay}`);
      const env = Object.fromEntries(CARRIED_ENV.flatMap((k) => (process.env[k] ? [[k, process.env[k]]] : [])));
      // argv[1] is this CLI's script (through any symlink a global install made).
      const cli = realpathSync(process.argv[1] ?? '');
      const report = manager().install({ node: process.execPath, cli, relay, insecure, stateDir: p.stateDir, env });
      say(report, 'installed', 'already installed');
      process.stdout.write(`It runs \`vimrelay agent\` for ${printable(relay)} at login; its output goes to ${printable(p.stateDir)}/${SERVICE_LOG}.\n`);
      return 0;
    }
    case 'uninstall': {
      say(manager().uninstall(), 'removed', 'not installed');
      return 0;
    }
    case 'status': {
      const m = manager();
      const state = m.state();
      const status = liveStatus(readStatus(paths().status));
      const lines = [
        state.installed ? `service: installed (${m.kind}: ${printable(state.file)})` : `service: not installed (vimrelay service install)`,
        `running: ${state.running === null ? 'unknown' : state.running ? 'yes' : 'no'} (${printable(state.detail)})`,
        status
          ? `agent: ${printable(status.state)}${status.device ? ` as ${printable(status.device)}` : ''} to ${printable(status.relay_url)}${status.reason ? ` (${printable(status.reason)})` : ''}`
          : 'agent: not running',
      ];
      process.stdout.write(lines.join('\n') + '\n');
      return state.installed ? 0 : 3;
    }
    default:
      throw new Error('service takes install, uninstall or status');
  }
}
