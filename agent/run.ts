/**
 * The agent as a library: links an editor source to a relay, logs editors as they come and go,
 * and keeps the status file current. Used by `vimrelay agent` and by the local launcher.
 */
import { announceEditors } from './editors/announce.ts';
import type { EditorSource } from './editors/editor.ts';
import { writeStatus } from './config/status.ts';
import type { Logger } from './log.ts';
import type { CallGuard } from './policy/enforce.ts';
import { RelayLink, type LinkState } from './relay/connection.ts';

export interface AgentOptions {
  relayUrl: string;
  /** The device credential; the link trades it for short-lived JWTs. */
  deviceCredential: string;
  editors: EditorSource;
  /** The user's policy and the audit log (agent/policy/setup.ts openCallGuard). */
  guard: CallGuard;
  logger: Logger;
  statusFile: string;
  /** The directories discovery scans, for the status file. */
  watching: readonly string[];
}

export interface RunningAgent {
  /** Settles when the agent stops: `rejected` when the relay refused the device credential. */
  readonly done: Promise<{ rejected: boolean; reason?: string }>;
  stop(): Promise<void>;
}

export function startAgent(opts: AgentOptions): RunningAgent {
  let state: LinkState = 'connecting';
  let device: string | null = null;
  let reason: string | null = null;
  const save = (): void =>
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
      updated_at: new Date().toISOString(),
    });

  const unsubscribe = announceEditors(opts.editors, opts.logger, save);

  const link = new RelayLink({
    relayUrl: opts.relayUrl,
    deviceCredential: opts.deviceCredential,
    editors: opts.editors,
    guard: opts.guard,
    logger: opts.logger,
    onState: (s, detail) => {
      state = s;
      device = detail.device ?? device;
      reason = detail.reason ?? null;
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
      state = 'stopped';
      save();
    },
  };
}
