/**
 * The CallGuard of a running agent (`vimrelay agent`, `vimrelay serve`, `npm start`): the policy
 * file and the audit log at their XDG paths, and vimrelay's own files of this environment. Loading an invalid policy file throws PolicyFileError, so the
 * agent refuses to start rather than run with a policy it cannot read.
 */
import { homedir } from 'node:os';
import { AuditLog } from '../audit/log.ts';
import type { Paths } from '../config/paths.ts';
import { CallGuard } from './enforce.ts';
import { PolicyStore } from './file.ts';
import { OwnFiles, type OwnPlace } from './own-files.ts';

/**
 * The guard for an agent using `p`; `own`: vimrelay's own places (own-files.ts `ownPlaces` of the
 * agent's environment and what its launcher adds); `home` expands `~/` in path globs (default: the user's).
 */
export function openCallGuard(p: Pick<Paths, 'policy' | 'audit'>, own: readonly OwnPlace[], home: string = process.env.HOME ?? homedir()): CallGuard {
  return new CallGuard({ policy: new PolicyStore(p.policy), audit: new AuditLog(p.audit), own: new OwnFiles(own), home });
}
