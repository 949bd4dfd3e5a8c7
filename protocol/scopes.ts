/** Token scopes: one per permission class, space-separated in the `scope` claim (RFC 9068 §2.2.3). */
import { PERMISSION_CLASSES, type PermissionClass } from './tool.ts';

export const ALL_SCOPES: readonly PermissionClass[] = PERMISSION_CLASSES;

/** Parses a `scope` claim, keeping only known scopes. */
export function parseScopes(claim: unknown): PermissionClass[] {
  if (typeof claim !== 'string') return [];
  const known = new Set<string>(PERMISSION_CLASSES);
  return claim.split(' ').filter((s): s is PermissionClass => known.has(s));
}
