/**
 * The agent as a library: links an editor source to a relay, logs editors as they come and go,
 * and keeps the status file current, with the link's latest warnings (a connection as this device
 * refused, or one this agent took the device over from, that may mean someone else holds its
 * credential). Used by `vimrelay agent` and by the local launcher.
 * The status file is this agent's while it runs: written at start (the newest agent owns it),
 * then only while it still names this process or a process that has exited, so that an agent
 * replaced by a newer one, or a launcher that gives up, never overwrites the running one's status.
 */
import { announceEditors } from './editors/announce.ts';
import type { EditorSource } from './editors/editor.ts';
import { isRunning, readStatus, writeStatus } from './config/status.ts';
import type { Logger } from './log.ts';
import type { CallGuard } from './policy/enforce.ts';
import { RelayLink, type LinkEnd, type LinkState, type LinkWarning } from './relay/connection.ts';

export interface AgentOptions {
  relayUrl: string;
  /** The device credential; the link trades it for short-lived JWTs. */
  deviceCredential: string;
  /** This agent's takeover proof for the relay (relay/takeover.ts). */
  takeoverProof: string;
  editors: EditorSource;
  /** The user's policy and the audit log (agent/policy/setup.ts openCallGuard). */
  guard: CallGuard;
  logger: Logger;
  statusFile: string;
  /** The directories discovery scans, for the status file. */
  watching: readonly string[];
}

export interface RunningAgent {
  /** Settles when the link ends: stopped, the device credential refused, or replaced by another agent. */
  readonly done: Promise<LinkEnd>;
  stop(): Promise<void>;
}

/** How many of the link's warnings the status file keeps, newest last. */
const STATUS_WARNINGS = 5;

export function startAgent(opts: AgentOptions): RunningAgent {
  let state: LinkState = 'connecting';
  let device: string | null = null;
  let reason: string | null = null;
  let warnings: LinkWarning[] = [];
  let started = false;
  // Called from the link's and the editors' events: a status file that cannot be written (no
  // descriptor left, a full disk) is logged, never thrown into them.
  const save = (): void => {
    try {
      saveNow();
    } catch (error) {
      opts.logger.warn('cannot write the status file', { file: opts.statusFile, error: error instanceof Error ? error.message : String(error) });
    }
  };
  const saveNow = (): void => {
    if (started && !ownsStatus(opts.statusFile)) return;
    started = true;
    writeStatus(opts.statusFile, {
      pid: process.pid,
      relay_url: opts.relayUrl,
      state,
      device,
      reason,
      editors: opts.editors.list().map((e) => {
        const i = e.info();
        return { id: i.id, kind: i.kind, name: i.name, cwd: i.cwd, pid: i.pid };
      }),
      watching: [...opts.watching],
      pending: opts.guard.decisions.count(),
      ...(warnings.length > 0 ? { warnings } : {}),
      updated_at: new Date().toISOString(),
    });
  };

  const unannounce = announceEditors(opts.editors, opts.logger, save);
  // The count of pending decisions changes only when one opens or closes.
  let pending = opts.guard.decisions.count();
  const unwatch = opts.guard.decisions.onChange(() => {
    if (opts.guard.decisions.count() === pending) return;
    pending = opts.guard.decisions.count();
    save();
  });
  const unsubscribe = (): void => {
    unannounce();
    unwatch();
  };

  const link = new RelayLink({
    relayUrl: opts.relayUrl,
    deviceCredential: opts.deviceCredential,
    takeoverProof: opts.takeoverProof,
    editors: opts.editors,
    guard: opts.guard,
    logger: opts.logger,
    onState: (s, detail) => {
      state = s;
      device = detail.device ?? device;
      reason = detail.reason ?? null;
      save();
    },
    onWarning: (warning) => {
      warnings = [...warnings, warning].slice(-STATUS_WARNINGS);
      save();
    },
  });
  save();
  const done = link.run();
  return {
    done,
    async stop() {
      unsubscribe();
      link.stop();
      await opts.editors.stop();
      // A link that ended by itself keeps saying why (replaced, rejected, refused).
      if (state !== 'replaced' && state !== 'rejected' && state !== 'refused') state = 'stopped';
      save();
    },
  };
}

/** Whether the status file names this process, or one that no longer runs (or is unreadable). */
function ownsStatus(file: string): boolean {
  const status = readStatus(file);
  return status === undefined || status.pid === process.pid || !isRunning(status.pid);
}
