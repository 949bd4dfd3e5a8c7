/**
 * The shape of one catalog entry. A tool's zod schemas are the single source of truth: they feed
 * the JSON Schema advertised in `tools/list`, validation in the Worker and validation in the agent.
 */
import { z } from 'zod';

/** Permission classes (README "Permissions"); also the OAuth / access-token scopes. */
export const PERMISSION_CLASSES = ['read', 'write', 'open', 'save', 'exec', 'terminal'] as const;
export const PermissionClass = z.enum(PERMISSION_CLASSES);
export type PermissionClass = z.infer<typeof PermissionClass>;

/** MCP tool annotations (spec 2025-06-18 "Tool annotations"); openWorldHint is always false. */
export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: false;
}

export interface ToolSpec<
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodObject = z.ZodObject,
> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** The permission class of the tool: what tools/list, annotations and consent describe. */
  readonly permission: PermissionClass;
  /**
   * The class a call needs when it depends on the arguments (lsp_rename: `write` with `apply`,
   * else `read`); never stricter than `permission`, except `exec` for an argument that runs what
   * another program decides (lsp_code_actions applying an action that runs a server command).
   * Absent: always `permission`. Read it through `permissionFor`, which the relay's scope checks
   * and the agent's policy share.
   */
  readonly permissionOf?: (args: Record<string, unknown>) => PermissionClass;
  readonly input: I;
  readonly output: O;
  readonly annotations: ToolAnnotations;
  /**
   * `hub`: answered from the relay's registry (or the local agent's) without reaching an editor.
   * `editor`: routed to one editor, chosen by the `editor` argument.
   * `agent`: routed to one agent (device), chosen by the `device` argument; acts on the agent
   * itself, not on an editor (the wire `call` carries `editor: ""`).
   */
  readonly routing: 'hub' | 'editor' | 'agent';
  /**
   * The hint of this tool's TIMEOUT error, when the default one would mislead (e.g. a command that
   * may be waiting on a prompt). Used by the Hub and the agent alike.
   */
  readonly timeoutHint?: string;
}

/**
 * Schemas whose bounds guard the server only (an id or a path of kilobytes), which no honest
 * value comes near: the arguments are validated with them, and tools/list does not spend a
 * model's context on them (protocol/result.ts). Mark with `serverGuard`.
 */
export const SERVER_GUARDS = new WeakSet<object>();

/** `schema`, its length bounds marked as the server's guard only (SERVER_GUARDS). */
export function serverGuard<T extends z.ZodType>(schema: T): T {
  SERVER_GUARDS.add(schema);
  return schema;
}

/** Identity helper that keeps the literal schema types of a spec. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  spec: ToolSpec<I, O>,
): ToolSpec<I, O> {
  return spec;
}

/**
 * The permission class a call of `spec` with `args` needs (README "Permissions"). `args` may be
 * unvalidated (the relay checks scopes before the MCP server validates): an argument of the wrong
 * type asks for no more than a valid call without it would, and validation then refuses the call.
 */
export function permissionFor(spec: ToolSpec, args: unknown): PermissionClass {
  if (!spec.permissionOf) return spec.permission;
  return spec.permissionOf(typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {});
}

export type ToolInput<T extends ToolSpec> = z.infer<T['input']>;
export type ToolOutput<T extends ToolSpec> = z.infer<T['output']>;

/** Read-only tools: they never change an editor. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** Tools that change text or state in a way the user may not get back by themselves; not idempotent. */
export const CHANGES_TEXT: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};
