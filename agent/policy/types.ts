/**
 * The contract between the parts of the agent's permission policy (ARCHITECTURE.md
 * "Trust boundaries"): the rules file and its decisions (policy/), the prompts shown inside editors
 * (editors/*), the audit log (audit/) and the dispatcher that ties them together for every call,
 * from the relay and in local mode alike.
 */
import type { PermissionClass } from '../../protocol/index.ts';

/**
 * What a rule says about a class of calls: allow, ask at a prompt, deny; or, for the write class
 * only, review: the edit is shown to the user as a diff in the editor before it lands (README "Reviews").
 */
export type Decision = 'allow' | 'ask' | 'review' | 'deny';

/** The classes a `review` rule may name: only edits can be reviewed as a diff. */
export const REVIEWABLE_CLASSES: readonly PermissionClass[] = ['write'];

/** One rule: `decision` for `klass`, narrowed to editors and paths matching the globs (absent: any). */
export interface Rule {
  klass: PermissionClass;
  decision: Decision;
  /** Glob on the editor's name (e.g. `work-*`); absent: every editor. */
  editor?: string;
  /** Glob on an absolute file path the call addresses (e.g. `/home/me/src/**`); absent: any path. */
  path?: string;
  /**
   * Exactly the name the user chose for an editor (Editor.chosenName); absent: any editor. Never
   * matches an editor whose name is only its directory's. What "allow always" at a prompt writes.
   */
  chosenName?: string;
}

/** What a call asks of the policy. */
export interface PolicyQuery {
  klass: PermissionClass;
  /** The editor's name as list_editors shows it. */
  editorName: string;
  /** The name the user chose for it, or null (Editor.chosenName). */
  chosenName: string | null;
  /** Absolute paths of the files the call addresses (empty when it addresses none). */
  paths: readonly string[];
}

/**
 * Who makes a call: its client id, the name it goes by when one came, and how prompts show it
 * (`label`; calls/client-names.ts).
 */
export interface Caller {
  /** The client id: an OAuth client id, `pat:<name>`, `local:stdio`, `local:http`. */
  readonly id: string;
  readonly name?: string;
  readonly label: string;
}

/** What the user is shown when a call needs their answer. */
export interface AskRequest {
  /**
   * Who asks, as the prompt names it: the name the client goes by (the one the relay's consent
   * page showed, a token's, local mode's client's own), with its id beside it when another client
   * has that name too; its id when no name came (calls/client-names.ts). The client's own words:
   * shown escaped.
   */
  client: string;
  tool: string;
  klass: PermissionClass;
  /** The editor's name. */
  editor: string;
  /** The name the user chose for it, or null: what the prompt's "allow always" offers depends on it. */
  chosenName: string | null;
  /**
   * What the call would do, for a human, whole: the command text, the diff or replaced text, the
   * path; null when it is longer than a prompt shows whole (policy/preview.ts), and the prompt
   * then offers only deny.
   */
  preview: string | null;
  /** The preview's length in characters, whether shown or not. */
  previewChars: number;
  /** Absolute paths the call addresses. */
  paths: readonly string[];
}

/**
 * The user's answer to a prompt. `timeout`: no answer before the deadline (a deny); `cancelled`:
 * the call was cancelled (its client gave up, or the link that carried it dropped) while the
 * prompt was up, so nobody waits for an answer any more (the CallGuard's, never a prompter's).
 */
export type AskAnswer =
  | { kind: 'allow_once' }
  | { kind: 'allow_always' }
  | { kind: 'deny'; reason?: string }
  | { kind: 'timeout' }
  | { kind: 'cancelled' };
