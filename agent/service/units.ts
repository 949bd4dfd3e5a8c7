/**
 * The service definitions that keep `vimrelay agent` running at login: a systemd user unit
 * (systemd.service(5), systemd.exec(5)) and a launchd agent (launchd.plist(5)). Pure: text in,
 * text out. Both run `vimrelay agent --service`, which exits 0 when retrying cannot help (the
 * device was revoked, or another agent took its place) and non-zero on a failure, so that
 * "restart on failure" (systemd `Restart=on-failure`, launchd `KeepAlive.SuccessfulExit=false`)
 * restarts it exactly when a restart can help. Output goes to a log in the state directory.
 */

/** What a service runs and where it logs. */
export interface ServiceSpec {
  /** Absolute path of the Node binary. */
  readonly node: string;
  /** Absolute path of the vimrelay CLI script (bin/vimrelay.js). */
  readonly cli: string;
  /** The relay the agent connects to. */
  readonly relay: string;
  /** The user allowed plain http:// to a relay on another machine (`--insecure`); the agent is told so too. */
  readonly insecure?: boolean;
  /** The agent's state directory, where the service's own log goes. */
  readonly stateDir: string;
  /** Environment to set (XDG directories given at install time), sorted by name. */
  readonly env: Readonly<Record<string, string>>;
}

/** The systemd user unit's name. */
export const SYSTEMD_UNIT = 'vimrelay-agent.service';
/** The launchd agent's label (its plist is `<label>.plist`). */
export const LAUNCHD_LABEL = 'dev.vimrelay.agent';
/** The file in the state directory that takes the service's stdout and stderr. */
export const SERVICE_LOG = 'service.log';

/** The arguments the service runs the CLI with. */
export function agentArgs(spec: ServiceSpec): string[] {
  return [spec.cli, 'agent', '--service', '--relay', spec.relay, ...(spec.insecure ? ['--insecure'] : [])];
}

/**
 * A systemd unit value with the characters systemd treats specially quoted (systemd.syntax(7):
 * words in double quotes with `\\`, `"` escaped; `%` is a specifier, written `%%`; `$` expands, `$$`).
 */
function systemdWord(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$')}"`;
}

/** The systemd user unit (systemd.service(5)). */
export function systemdUnit(spec: ServiceSpec): string {
  const log = `${spec.stateDir}/${SERVICE_LOG}`;
  const env = Object.entries(spec.env).map(([k, v]) => `Environment=${systemdWord(`${k}=${v}`)}`);
  return [
    '[Unit]',
    `Description=vimrelay agent: this machine's Neovim and Vim, through the relay at ${spec.relay.replace(/%/g, '%%')}`,
    'Wants=network-online.target',
    'After=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${[spec.node, ...agentArgs(spec)].map(systemdWord).join(' ')}`,
    ...env,
    // Exit 0 means retrying cannot help (revoked, replaced by another agent, or refused for one): stay stopped.
    'Restart=on-failure',
    'RestartSec=5',
    'UMask=0077',
    `StandardOutput=append:${log.replace(/%/g, '%%')}`,
    `StandardError=append:${log.replace(/%/g, '%%')}`,
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

function xml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The launchd agent (launchd.plist(5)), in the XML property list format. */
export function launchdPlist(spec: ServiceSpec): string {
  const log = `${spec.stateDir}/${SERVICE_LOG}`;
  const strings = (values: readonly string[], indent: string): string[] => values.map((v) => `${indent}<string>${xml(v)}</string>`);
  const env = Object.entries(spec.env).flatMap(([k, v]) => [`    <key>${xml(k)}</key>`, `    <string>${xml(v)}</string>`]);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    '<dict>',
    '  <key>Label</key>',
    `  <string>${LAUNCHD_LABEL}</string>`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...strings([spec.node, ...agentArgs(spec)], '    '),
    '  </array>',
    '  <key>EnvironmentVariables</key>',
    '  <dict>',
    ...env,
    '  </dict>',
    '  <key>RunAtLoad</key>',
    '  <true/>',
    // Restarted when it exits non-zero; exit 0 (revoked, replaced, refused) leaves it stopped.
    '  <key>KeepAlive</key>',
    '  <dict>',
    '    <key>SuccessfulExit</key>',
    '    <false/>',
    '  </dict>',
    '  <key>ThrottleInterval</key>',
    '  <integer>5</integer>',
    '  <key>Umask</key>',
    '  <integer>63</integer>',
    '  <key>StandardOutPath</key>',
    `  <string>${xml(log)}</string>`,
    '  <key>StandardErrorPath</key>',
    `  <string>${xml(log)}</string>`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}
