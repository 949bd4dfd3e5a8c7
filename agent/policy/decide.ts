/**
 * The policy's decision for one call (README "Permissions"). Pure.
 *
 * Precedence: the class default first (read/write/open allow; save/exec/terminal ask), then the
 * rules in file order, the LAST matching rule winning. A rule matches a query when its class is
 * the query's, its `editor` glob (if any) matches the editor's whole name, its `chosen_name` (if
 * any) is exactly the name the user chose for the editor, and its `path` glob (if
 * any) matches the path. A call that addresses several paths is decided per path and the strictest
 * answer wins (deny > review > ask > allow); a rule with a `path` glob never matches a call that addresses
 * no path.
 */
import type { PermissionClass } from '../../protocol/index.ts';
import { matchesGlob } from './glob.ts';
import type { Decision, PolicyQuery, Rule } from './types.ts';

/** The decision for each class when no rule matches (README "Permissions"). */
export const CLASS_DEFAULTS: Readonly<Record<PermissionClass, Decision>> = {
  read: 'allow',
  write: 'allow',
  open: 'allow',
  save: 'ask',
  exec: 'ask',
  terminal: 'ask',
};

/** A decision and the rule that made it (null: the class default). */
export interface Verdict {
  decision: Decision;
  rule: Rule | null;
}

/** A review shows the user more than a prompt does (the whole diff, to change or reject), so it is the stricter of the two. */
const STRICTNESS: Readonly<Record<Decision, number>> = { allow: 0, ask: 1, review: 2, deny: 3 };

/** The verdict of `rules` on `query`, as the header says; `home` expands `~/` in path globs. */
export function decide(policy: { rules: readonly Rule[] }, query: PolicyQuery, home?: string): Verdict {
  const candidates: readonly (string | null)[] = query.paths.length === 0 ? [null] : query.paths;
  let strictest: Verdict | null = null;
  for (const path of candidates) {
    const verdict = decideOne(policy.rules, query, path, home);
    if (strictest === null || STRICTNESS[verdict.decision] > STRICTNESS[strictest.decision]) strictest = verdict;
  }
  return strictest ?? { decision: CLASS_DEFAULTS[query.klass], rule: null };
}

function decideOne(rules: readonly Rule[], query: PolicyQuery, path: string | null, home: string | undefined): Verdict {
  let verdict: Verdict = { decision: CLASS_DEFAULTS[query.klass], rule: null };
  for (const rule of rules) {
    if (rule.klass !== query.klass) continue;
    if (rule.editor !== undefined && !matchesGlob(rule.editor, query.editorName, { basename: false })) continue;
    if (rule.chosenName !== undefined && rule.chosenName !== query.chosenName) continue;
    if (rule.path !== undefined && (path === null || !matchesGlob(rule.path, path, home === undefined ? {} : { home }))) continue;
    verdict = { decision: rule.decision, rule };
  }
  return verdict;
}

/** A rule as the CLI takes it: `exec ask --editor work-* --chosen-name work --path /src/**`. */
export function describeRule(rule: Rule): string {
  return [
    rule.klass,
    rule.decision,
    rule.editor === undefined ? '' : `--editor ${rule.editor}`,
    rule.chosenName === undefined ? '' : `--chosen-name ${rule.chosenName}`,
    rule.path === undefined ? '' : `--path ${rule.path}`,
  ]
    .filter((s) => s !== '')
    .join(' ');
}
