/**
 * Installs, removes and inspects the agent's login service with the platform's own service
 * manager: systemd's user instance on Linux (`systemctl --user`), launchd's per-user domain on
 * macOS (`launchctl … gui/<uid>`). Touches only the user's own files: the unit or plist under the
 * user's configuration (`$XDG_CONFIG_HOME/systemd/user/`, `~/Library/LaunchAgents/`). Install and
 * uninstall are idempotent. When the manager cannot be reached (no user session, as in a
 * container), the file is still written or removed, and the report says so once: after install,
 * what to run once there is a session; after uninstall, that nothing will start the agent again
 * (the unit and the link `enable` made are gone), never a command on the unit it removed.
 */
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { LAUNCHD_LABEL, launchdPlist, SYSTEMD_UNIT, systemdUnit, type ServiceSpec } from './units.ts';

/** Runs a command; the default runs it for real. Returns its exit status and output. */
export type Run = (command: string, args: readonly string[]) => { status: number | null; output: string };

const runForReal: Run = (command, args) => {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 15_000 });
  return { status: r.error ? null : r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}`.trim() };
};

/** What install and uninstall did. */
export interface ServiceReport {
  /** The unit or plist file. */
  readonly file: string;
  /** Whether the file changed (written anew, or removed). */
  readonly changed: boolean;
  /** Whether the service manager took it (enabled and started, or stopped and removed). */
  readonly managed: boolean;
  /** What the service manager said when it did not, and what to run instead. */
  readonly note: string | null;
}

/** Whether the service is installed and running, as its manager says. */
export interface ServiceState {
  readonly file: string;
  readonly installed: boolean;
  /** null: the manager could not be asked. */
  readonly running: boolean | null;
  /** The manager's own word for it (`active`, `inactive`, `running`…), or why it could not be asked. */
  readonly detail: string;
}

export interface ServiceManager {
  /** `systemd` or `launchd`. */
  readonly kind: string;
  readonly file: string;
  install(spec: ServiceSpec): ServiceReport;
  uninstall(): ServiceReport;
  state(): ServiceState;
}

/** Where the user's files are: their home, and the environment's XDG overrides. */
export interface ServiceEnv {
  readonly home: string;
  readonly env: NodeJS.ProcessEnv;
  readonly uid: number;
}

/** The manager of this platform, or null where vimrelay has none (Windows, others). */
export function serviceManager(platform: NodeJS.Platform, where: ServiceEnv, run: Run = runForReal): ServiceManager | null {
  if (platform === 'linux') return systemd(where, run);
  if (platform === 'darwin') return launchd(where, run);
  return null;
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** Writes `text` to `file` unless it already holds it; returns whether it wrote. */
function writeIfChanged(file: string, text: string): boolean {
  if (readText(file) === text) return false;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, text, { mode: 0o600 });
  return true;
}

function removeIfPresent(file: string): boolean {
  if (readText(file) === null) return false;
  rmSync(file, { force: true });
  return true;
}

/** Removes the symbolic link `link` (dangling or not); returns whether there was one. */
function removeLink(link: string): boolean {
  try {
    if (!lstatSync(link).isSymbolicLink()) return false;
  } catch {
    return false;
  }
  rmSync(link, { force: true });
  return true;
}

function systemd(where: ServiceEnv, run: Run): ServiceManager {
  const configHome = where.env.XDG_CONFIG_HOME || join(where.home, '.config');
  const file = join(configHome, 'systemd', 'user', SYSTEMD_UNIT);
  const ctl = (...args: string[]) => run('systemctl', ['--user', ...args]);
  // The link `systemctl --user enable` makes for the unit's WantedBy=default.target.
  const wants = join(configHome, 'systemd', 'user', 'default.target.wants', SYSTEMD_UNIT);
  const said = (output: string): string => `systemctl --user did not answer (${output.split('\n')[0] || 'no user session'})`;
  const unreachable = (output: string, todo: string): string => `${said(output)}; once you are logged in to a session with a user manager, run: ${todo}`;
  return {
    kind: 'systemd',
    file,
    install(spec) {
      const changed = writeIfChanged(file, systemdUnit(spec));
      const reload = ctl('daemon-reload');
      if (reload.status !== 0) return { file, changed, managed: false, note: unreachable(reload.output, `systemctl --user daemon-reload && systemctl --user enable --now ${SYSTEMD_UNIT}`) };
      const enable = ctl('enable', '--now', SYSTEMD_UNIT);
      // A changed unit of a running service takes effect on restart.
      const restart = changed && enable.status === 0 ? ctl('restart', SYSTEMD_UNIT) : enable;
      const ok = enable.status === 0 && restart.status === 0;
      return { file, changed, managed: ok, note: ok ? null : unreachable(`${enable.output} ${restart.output}`.trim(), `systemctl --user enable --now ${SYSTEMD_UNIT}`) };
    },
    uninstall() {
      const present = readText(file) !== null;
      const disable = present ? ctl('disable', '--now', SYSTEMD_UNIT) : { status: 0, output: '' };
      const changed = removeIfPresent(file);
      if (disable.status !== 0) {
        // Without the manager nothing was stopped or disabled: the link enable made goes too, so
        // that no login starts the agent again; there is no unit left to name in a command.
        removeLink(wants);
        const note = `${said(disable.output)}, so nothing was stopped; the unit is removed and no login will start the agent again (one still running, as \`vimrelay status\` shows, ends with its session)`;
        return { file, changed, managed: false, note };
      }
      const reload = changed ? ctl('daemon-reload') : { status: 0, output: '' };
      const ok = reload.status === 0;
      return { file, changed, managed: ok, note: ok ? null : `${said(reload.output)}: the unit is stopped and removed; systemd forgets it at its next start` };
    },
    state() {
      const installed = readText(file) !== null;
      const active = ctl('is-active', SYSTEMD_UNIT);
      const word = active.output.split('\n')[0] ?? '';
      // is-active answers a state word (active, inactive, failed, activating…) whatever its status.
      const known = /^(active|inactive|failed|activating|deactivating|reloading)$/.test(word);
      return { file, installed, running: known ? word === 'active' : null, detail: known ? word : `systemctl --user did not answer: ${word || 'no user session'}` };
    },
  };
}

function launchd(where: ServiceEnv, run: Run): ServiceManager {
  const file = join(where.home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
  const domain = `gui/${where.uid}`;
  const target = `${domain}/${LAUNCHD_LABEL}`;
  const ctl = (...args: string[]) => run('launchctl', args);
  return {
    kind: 'launchd',
    file,
    install(spec) {
      const changed = writeIfChanged(file, launchdPlist(spec));
      const loaded = ctl('print', target).status === 0;
      // A changed plist takes effect once booted out and in again.
      if (loaded && changed) ctl('bootout', target);
      const boot = loaded && !changed ? { status: 0, output: '' } : ctl('bootstrap', domain, file);
      const ok = boot.status === 0;
      return { file, changed, managed: ok, note: ok ? null : `launchctl did not take it (${boot.output.split('\n')[0] ?? ''}); run: launchctl bootstrap ${domain} ${file}` };
    },
    uninstall() {
      const loaded = ctl('print', target).status === 0;
      const out = loaded ? ctl('bootout', target) : { status: 0, output: '' };
      const changed = removeIfPresent(file);
      const ok = out.status === 0;
      return { file, changed, managed: ok, note: ok ? null : `launchctl did not remove it (${out.output.split('\n')[0] ?? ''}); run: launchctl bootout ${target}` };
    },
    state() {
      const installed = readText(file) !== null;
      const printed = ctl('print', target);
      if (printed.status !== 0) return { file, installed, running: installed ? false : null, detail: installed ? 'not loaded' : 'not loaded' };
      const state = /\bstate = (\w+)/.exec(printed.output)?.[1] ?? 'loaded';
      return { file, installed, running: state === 'running', detail: state };
    },
  };
}
