/**
 * The contract between the parts of the agent's permission policy (ARCHITECTURE.md
 * "Trust boundaries"): the rules file and its decisions (policy/), the prompts shown inside editors
 * (editors/*), the audit log (audit/) and the dispatcher that ties them together for every call,
 * from the relay and in local mode alike.
 */
import type { PermissionClass } from '../../protocol/index.ts';

/** What a rule says about a class of calls. */
export type Decision = 'allow' | 'ask' | 'deny';

/** One rule: `decision` for `klass`, narrowed to editors and paths matching the globs (absent: any). */
export interface Rule {
  klass: PermissionClass;
  decision: Decision;
  /** Glob on the editor's name (e.g. `work-*`); absent: every editor. */
  editor?: string;
  /** Glob on an absolute file path the call addresses (e.g. `/home/me/src/**`); absent: any path. */
  path?: string;
}

/** What a call asks of the policy. */
export interface PolicyQuery {
  klass: PermissionClass;
  /** The editor's name as list_editors shows it. */
  editorName: string;
  /** Absolute paths of the files the call addresses (empty when it addresses none). */
  paths: readonly string[];
}

/** What the user is shown when a call needs their answer. */
export interface AskRequest {
  /** Who asks: the client id the relay passed (OAuth client, `pat:<name>`, `local`). */
  client: string;
  tool: string;
  klass: PermissionClass;
  /** The editor's name. */
  editor: string;
  /** What the call would do, for a human: the command text, the diff or replaced text, the path. Capped. */
  preview: string;
  /** Absolute paths the call addresses. */
  paths: readonly string[];
}

/** The user's answer to a prompt. `timeout`: no answer before the deadline (a deny). */
export type AskAnswer =
  | { kind: 'allow_once' }
  | { kind: 'allow_always'; scope: 'editor' | 'all' }
  | { kind: 'deny'; reason?: string }
  | { kind: 'timeout' };

/**
 * Shows a prompt inside an editor and waits for the answer; `signal` aborts at the prompt's
 * deadline. Rejects with EditorGone when the editor goes away first.
 */
export interface Prompter {
  ask(request: AskRequest, signal: AbortSignal): Promise<AskAnswer>;
}
