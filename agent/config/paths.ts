/**
 * Where the agent keeps things (XDG Base Directory spec): config and credentials under
 * `$XDG_CONFIG_HOME/vimrelay`, logs and state under `$XDG_STATE_HOME/vimrelay`. Every path is
 * derived from the environment passed in, so tests and users can isolate a run.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface Paths {
  configDir: string;
  stateDir: string;
  credentials: string;
  /** The agent's settings (agent/config/agent-config.ts). */
  config: string;
  status: string;
  /** The newest `vimrelay serve`'s own status (config/status.ts ServeStatus). */
  serveStatus: string;
  log: string;
  /** The permission policy (agent/policy/file.ts). */
  policy: string;
  /** The audit log of every call (agent/audit/log.ts). */
  audit: string;
  /** The agent's takeover key (agent/relay/takeover.ts), apart from the credentials. */
  takeoverKey: string;
}

export function paths(env: NodeJS.ProcessEnv = process.env): Paths {
  const home = env.HOME ?? homedir();
  const configHome = env.XDG_CONFIG_HOME || join(home, '.config');
  const stateHome = env.XDG_STATE_HOME || join(home, '.local', 'state');
  const configDir = join(configHome, 'vimrelay');
  const stateDir = join(stateHome, 'vimrelay');
  return {
    configDir,
    stateDir,
    credentials: join(configDir, 'credentials.json'),
    config: join(configDir, 'config.json'),
    status: join(stateDir, 'status.json'),
    serveStatus: join(stateDir, 'serve.json'),
    log: join(stateDir, 'agent.log'),
    policy: join(configDir, 'policy.json'),
    audit: join(stateDir, 'audit.log'),
    takeoverKey: join(stateDir, 'takeover-key'),
  };
}
