/** `vimrelay agent`: serve this machine's editors to the relay until interrupted. */
import { mkdirSync } from 'node:fs';
import { defaultRelay, normaliseRelayUrl, relayCredentials } from '../config/credentials.ts';
import { paths } from '../config/paths.ts';
import { createEditorSource } from '../editors/source.ts';
import { createLogger } from '../log.ts';
import { startAgent } from '../run.ts';
import { interrupted } from './signals.ts';

export async function agentCommand(opts: { relay?: string; 'discover-dir'?: string[]; verbose?: boolean }): Promise<number> {
  const stopped = interrupted();
  const p = paths();
  const relay = opts.relay ? normaliseRelayUrl(opts.relay) : defaultRelay(p.credentials);
  if (!relay) throw new Error(`no relay given and no single enrolled relay in ${p.credentials}; pass --relay URL`);
  const token = relayCredentials(p.credentials, relay).device_token;
  if (!token) throw new Error(`no device credential for ${relay}; run \`vimrelay enroll --relay ${relay}\` first`);
  mkdirSync(p.stateDir, { recursive: true });
  const logger = createLogger({ level: opts.verbose ? 'debug' : 'info', file: p.log });
  const editors = createEditorSource({ logger, vim: true, ...(opts['discover-dir'] ? { dirs: opts['discover-dir'] } : {}) });
  const agent = startAgent({ relayUrl: relay, deviceToken: token, editors, logger, statusFile: p.status });
  const end = await Promise.race([agent.done, stopped]);
  await agent.stop();
  if (end !== 'interrupted' && end.rejected) {
    process.stderr.write(`vimrelay: ${end.reason}; enroll this machine again\n`);
    return 1;
  }
  return 0;
}
