/**
 * The policy file, `$XDG_CONFIG_HOME/vimrelay/policy.json` (README
 * "Permissions"): `{ "rules": [{ "class", "decision", "editor"?, "chosen_name"?, "path"? }], "never_read"?: [globs], "ask_via"?: [surfaces] }`,
 * `decision` one of allow, ask, deny, and review (for the write class only); `ask_via` where a
 * prompt or a review may be answered (README "Deciding from elsewhere"): some of editor, dashboard,
 * assistant, each once; absent, every one that can reach the user.
 * An absent file is the defaults (read/write/open allow, save/exec/terminal ask — those live in
 * decide.ts's CLASS_DEFAULTS — and the default `never_read` list); an absent `never_read` is the
 * default list, a present one is exactly that list. An invalid file is an error naming the file
 * and what is wrong: the agent and `serve` refuse to start with it, and a running agent refuses
 * every call while it stays so. So is a file someone else could have written (not the user's, or
 * writable by group or others, or in a directory of someone else's: config/own-file.ts). Written 0600 through a temp
 * file and a rename, pretty-printed so it stays hand-editable. `PolicyStore` re-reads it when its
 * mtime changes, so `vimrelay allow …` takes effect on a running agent.
 */
import { statSync } from 'node:fs';
import { z } from 'zod';
import { PermissionClass, Surface } from '../../protocol/index.ts';
import { readOwnFile, UntrustedFileError } from '../config/own-file.ts';
import { writePrivateFile } from '../config/private-file.ts';
import { REVIEWABLE_CLASSES, type Rule } from './types.ts';

/**
 * Globs whose files' content is never returned nor edited, when the file names none: environment
 * files, keys and certificates anywhere, and the common credential stores, in the home directory
 * (SSH, GnuPG, AWS, Kubernetes, Docker, GitHub CLI, Google Cloud, Azure, Cargo, RubyGems,
 * Terraform) or in any directory (netrc, npm, PyPI, PostgreSQL, Git, Vault tokens; PKCS #12, Java
 * keystores, KeePass databases).
 */
export const DEFAULT_NEVER_READ: readonly string[] = [
  '.env*',
  '*.pem',
  '*.key',
  'id_rsa*',
  'id_ed25519*',
  'id_ecdsa*',
  'id_dsa*',
  '~/.ssh/**',
  '~/.gnupg/**',
  '~/.aws/credentials',
  '~/.aws/sso/cache/**',
  '~/.aws/cli/cache/**',
  '~/.kube/config',
  '~/.docker/config.json',
  '~/.config/gh/hosts.yml',
  '~/.config/gcloud/**',
  '~/.azure/**',
  '~/.cargo/credentials*',
  '~/.gem/credentials',
  '~/.terraform.d/credentials.tfrc.json',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.pgpass',
  '.git-credentials',
  '.vault-token',
  '*.p12',
  '*.pfx',
  '*.jks',
  '*.keystore',
  '*.kdbx',
];

/** The policy as the agent uses it. */
export interface Policy {
  /** In file order; the last matching rule wins (decide.ts). */
  rules: readonly Rule[];
  never_read: readonly string[];
  /** True when the file gives no `never_read` (the defaults apply, and later defaults will too): it is then written back without one. */
  neverReadDefault?: true;
  /** Where prompts and reviews may be answered; absent: every surface that can reach the user. */
  askVia?: readonly Surface[];
}

const RuleJson = z
  .strictObject({
    class: PermissionClass,
    decision: z.enum(['allow', 'ask', 'review', 'deny']),
    editor: z.string().min(1).optional(),
    chosen_name: z.string().min(1).optional(),
    path: z.string().min(1).optional(),
  })
  .refine((r) => r.decision !== 'review' || REVIEWABLE_CLASSES.includes(r.class), {
    message: `"review" is a decision for the ${REVIEWABLE_CLASSES.join(', ')} class only (edits are what a review shows)`,
    path: ['decision'],
  });

/** Where decisions may be answered: at least one surface, none twice. */
export const AskVia = z
  .array(Surface)
  .min(1, 'ask_via names at least one of editor, dashboard, assistant (to refuse instead of asking, deny the class)')
  .refine((list) => new Set(list).size === list.length, 'ask_via names each surface once');

const PolicyJson = z.strictObject({
  rules: z.array(RuleJson).default([]),
  never_read: z.array(z.string().min(1)).optional(),
  ask_via: AskVia.optional(),
});

/** The policy of an absent file. */
export function defaultPolicy(): Policy {
  return { rules: [], never_read: [...DEFAULT_NEVER_READ], neverReadDefault: true };
}

/** Thrown for a policy file that cannot be used; the message names the file and the problem. */
export class PolicyFileError extends Error {
  override name = 'PolicyFileError';
}

/** Parses the text of a policy file; `file` only names it in errors. */
export function parsePolicy(text: string, file: string): Policy {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new PolicyFileError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = PolicyJson.safeParse(json);
  if (!parsed.success) throw new PolicyFileError(`${file} is not a valid policy file:\n${z.prettifyError(parsed.error)}`);
  return {
    rules: parsed.data.rules.map((r) => ({
      klass: r.class,
      decision: r.decision,
      ...(r.editor === undefined ? {} : { editor: r.editor }),
      ...(r.chosen_name === undefined ? {} : { chosenName: r.chosen_name }),
      ...(r.path === undefined ? {} : { path: r.path }),
    })),
    ...(parsed.data.never_read === undefined ? { never_read: [...DEFAULT_NEVER_READ], neverReadDefault: true as const } : { never_read: parsed.data.never_read }),
    ...(parsed.data.ask_via === undefined ? {} : { askVia: parsed.data.ask_via }),
  };
}

/** Reads the policy file: the defaults when absent; PolicyFileError when invalid or not the user's alone. */
export function readPolicy(file: string): Policy {
  let text: string | undefined;
  try {
    text = readOwnFile(file);
  } catch (err) {
    if (err instanceof UntrustedFileError) throw new PolicyFileError(err.message);
    throw err;
  }
  return text === undefined ? defaultPolicy() : parsePolicy(text, file);
}

/** The file's text for `policy`: rules with `class` first, as a person would write them. */
export function formatPolicy(policy: Policy): string {
  const rules = policy.rules.map((r) => ({
    class: r.klass,
    decision: r.decision,
    ...(r.editor === undefined ? {} : { editor: r.editor }),
    ...(r.chosenName === undefined ? {} : { chosen_name: r.chosenName }),
    ...(r.path === undefined ? {} : { path: r.path }),
  }));
  const askVia = policy.askVia === undefined ? {} : { ask_via: policy.askVia };
  return JSON.stringify(policy.neverReadDefault ? { rules, ...askVia } : { rules, never_read: policy.never_read, ...askVia }, null, 2) + '\n';
}

/** Writes `policy` to `file`, 0600, atomically. */
export function writePolicy(file: string, policy: Policy): void {
  writePrivateFile(file, formatPolicy(policy));
}

/**
 * Appends `rule`, first removing any rule with the same class, editor, chosen name and path (so
 * the new one is the last and wins), and writes the file. Re-reads the file first so hand edits survive.
 */
export function addRule(file: string, rule: Rule): Policy {
  const current = readPolicy(file);
  const same = (r: Rule): boolean => r.klass === rule.klass && r.editor === rule.editor && r.chosenName === rule.chosenName && r.path === rule.path;
  const next: Policy = { ...current, rules: [...current.rules.filter((r) => !same(r)), rule] };
  writePolicy(file, next);
  return next;
}

/** Sets where decisions may be answered (`askVia`; undefined: everywhere that reaches the user) and writes the file. Re-reads it first. */
export function setAskVia(file: string, askVia: readonly Surface[] | undefined): Policy {
  const next: Policy = { ...readPolicy(file) };
  if (askVia === undefined) delete next.askVia;
  else next.askVia = askVia;
  writePolicy(file, next);
  return next;
}

/**
 * Takes rule `position` (1-based, in file order, as `vimrelay rules` numbers them) out of the
 * file and returns it; the other rules keep their order. Throws RangeError when there is no such rule.
 */
export function removeRule(file: string, position: number): Rule {
  const current = readPolicy(file);
  // Undefined for a position that is not a whole number from 1 to the number of rules.
  const removed = current.rules[position - 1];
  if (removed === undefined) {
    throw new RangeError(current.rules.length === 0 ? `there is no rule ${position}: the policy has no rules` : `there is no rule ${position}: the rules are numbered 1 to ${current.rules.length}`);
  }
  writePolicy(file, { ...current, rules: current.rules.filter((_, i) => i !== position - 1) });
  return removed;
}

/** The policy file as a running agent sees it: re-read whenever its inode changes (content, mode, owner, the file replaced). */
export class PolicyStore {
  readonly file: string;
  #policy: Policy;
  #stamp: string;

  /** Reads the file now; throws PolicyFileError when it is invalid (the agent must not start). */
  constructor(file: string) {
    this.file = file;
    this.#stamp = stampOf(file);
    this.#policy = readPolicy(file);
  }

  /**
   * The current policy. A file that became invalid since it was last read throws
   * PolicyFileError, and the caller refuses the call: a broken policy never means "allow".
   */
  current(): Policy {
    const stamp = stampOf(this.file);
    if (stamp !== this.#stamp) {
      this.#policy = readPolicy(this.file);
      this.#stamp = stamp;
    }
    return this.#policy;
  }

  /** Appends a rule as `addRule` does and makes it current at once. */
  add(rule: Rule): void {
    this.#policy = addRule(this.file, rule);
    this.#stamp = stampOf(this.file);
  }
}

function stampOf(file: string): string {
  try {
    const s = statSync(file, { bigint: true });
    // ctime changes with the content and with a chmod or chown too, which decide whether it is trusted.
    return `${s.ctimeNs}:${s.mtimeNs}:${s.size}:${s.ino}`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw err;
  }
}
