/**
 * The CallGuard of a running agent (`vimrelay agent`, `vimrelay serve`): the policy file and the
 * audit log at their XDG paths. Loading an invalid policy file throws PolicyFileError, so the
 * agent refuses to start rather than run with a policy it cannot read.
 */
import { homedir } from 'node:os';
import { AuditLog } from '../audit/log.ts';
import type { Paths } from '../config/paths.ts';
import { CallGuard } from './enforce.ts';
import { PolicyStore } from './file.ts';

/** The guard for an agent using `p`; `home` expands `~/` in path globs (default: the user's). */
export function openCallGuard(p: Pick<Paths, 'policy' | 'audit'>, home: string = process.env.HOME ?? homedir()): CallGuard {
  return new CallGuard({ policy: new PolicyStore(p.policy), audit: new AuditLog(p.audit), home });
}
