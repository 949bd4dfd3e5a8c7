/**
 * Policy fixtures. The default policy asks the user before save/exec/terminal calls,
 * which no test could answer unless it means to; so every isolated home gets a permissive policy
 * file (every class allowed, the default never_read list), and a test of the policy writes its own.
 * `testGuard()` builds the CallGuard an in-process Dispatcher or LocalForwarder needs, with its
 * policy file and audit log in a fresh temporary directory.
 */
import { join } from 'node:path';
import { PERMISSION_CLASSES } from '../../protocol/index.ts';
import { AuditLog } from '../../agent/audit/log.ts';
import { CallGuard } from '../../agent/policy/enforce.ts';
import { PolicyStore, writePolicy, DEFAULT_NEVER_READ, type Policy } from '../../agent/policy/file.ts';
import { OwnFiles, type OwnPlace } from '../../agent/policy/own-files.ts';
import { tempDir } from './temp.ts';

/** Every class allowed, the default never_read globs. */
export function permissivePolicy(): Policy {
  return { rules: PERMISSION_CLASSES.map((klass) => ({ klass, decision: 'allow' as const })), never_read: [...DEFAULT_NEVER_READ] };
}

/** Writes the permissive policy file under `$XDG_CONFIG_HOME` = `configHome`. */
export function writePermissivePolicy(configHome: string): void {
  writePolicy(join(configHome, 'vimrelay', 'policy.json'), permissivePolicy());
}

/**
 * A CallGuard over `policy` (default: permissive), its files in a fresh directory, which is also
 * the one place of vimrelay's own files unless `own` names others.
 */
export function testGuard(policy: Policy = permissivePolicy(), home?: string, own?: readonly OwnPlace[]): { guard: CallGuard; policyFile: string; auditFile: string } {
  const dir = tempDir('vimrelay-policy-');
  const policyFile = join(dir, 'policy.json');
  const auditFile = join(dir, 'audit.log');
  writePolicy(policyFile, policy);
  const places = own ?? [{ path: dir, kind: 'config' as const }];
  const guard = new CallGuard({ policy: new PolicyStore(policyFile), audit: new AuditLog(auditFile), own: new OwnFiles(places), ...(home === undefined ? {} : { home }) });
  return { guard, policyFile, auditFile };
}
