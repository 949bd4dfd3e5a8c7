/**
 * Tool error codes: the stable strings a model (and a client) can branch on.
 *
 * Contract: every tool failure is a tool result with `isError: true` whose text is
 * `{"error": {code, message, hint, ...details}}` (PROTOCOL.md "Tools"). Protocol, auth and
 * transport failures never use these codes; they are HTTP or JSON-RPC errors.
 */
import { z } from 'zod';

export const ERROR_CODES = [
  'NO_EDITOR',
  'AMBIGUOUS_EDITOR',
  'EDITOR_NOT_FOUND',
  'EDITOR_OFFLINE',
  'EDITOR_BLOCKED',
  'BUFFER_NOT_FOUND',
  'STALE_CHANGEDTICK',
  'NO_MATCH',
  'MULTIPLE_MATCHES',
  'DIFF_MISMATCH',
  'PERMISSION_DENIED',
  'TIMEOUT',
  'CANCELLED',
  'UNSUPPORTED',
  'INVALID_ARGUMENT',
  'EDITOR_ERROR',
  'REVIEW_REJECTED',
  'REVIEW_CONFLICT',
  'REVIEW_EXPIRED',
  'REVIEW_NOT_FOUND',
  'DECISION_PENDING',
  'DECISION_REFUSED',
  'FORGED',
  'REPLAYED',
  'NOT_PENDING',
  'ALREADY_DECIDED',
  'NOT_OFFERED',
  'INVALID_ANSWER',
  'INPUT_REQUIRED',
  'INTERNAL',
] as const;

export const ErrorCode = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** The body of a tool failure. Extra keys carry details such as `current_changedtick`. */
export const ToolError = z
  .object({
    code: ErrorCode,
    message: z.string(),
    hint: z.string(),
  })
  .catchall(z.unknown());
export type ToolError = z.infer<typeof ToolError>;

/**
 * What a tool returns before it is shaped into an MCP result: data, or an error. `meta` becomes
 * the result's `_meta`, which a host gives the tool's app and not the model (protocol/app/card.ts).
 */
export type ToolOutcome =
  | { readonly ok: true; readonly data: Record<string, unknown>; readonly meta?: Record<string, unknown> }
  | { readonly ok: false; readonly error: ToolError; readonly meta?: Record<string, unknown> };

const OutcomeMeta = z.record(z.string(), z.unknown()).optional();
export const ToolOutcomeSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), data: z.record(z.string(), z.unknown()), meta: OutcomeMeta }),
  z.object({ ok: z.literal(false), error: ToolError, meta: OutcomeMeta }),
]);

/** Default hints, so that every code has an actionable next step even when a caller adds none. */
const DEFAULT_HINTS: { readonly [C in ErrorCode]: string } = {
  NO_EDITOR: 'Start Neovim (or Vim with the vimrelay plugin) on a machine running `vimrelay agent`, then call list_editors.',
  AMBIGUOUS_EDITOR: 'Several editors are online: pass `editor` with one of the listed ids.',
  EDITOR_NOT_FOUND: 'Call list_editors and pass one of the ids it returns as `editor`.',
  EDITOR_OFFLINE: 'The editor went away during the call. Call list_editors, then read_buffer before retrying an edit.',
  EDITOR_BLOCKED:
    'The editor waits for its user (a prompt or a question on its screen; `waiting_for` says which) and answers nothing until they reply; nothing was sent to it. ' +
    'Ask the user to answer it in the editor, then retry; list_editors shows `waiting_for` while it waits.',
  BUFFER_NOT_FOUND: 'Call get_state_brief to list the buffers, then pass a buffer number or path from it.',
  STALE_CHANGEDTICK: 'The buffer changed since you read it. Call read_buffer to get the current text and changedtick, then retry.',
  NO_MATCH: 'Call read_buffer and copy old_text exactly, including whitespace and line breaks.',
  MULTIPLE_MATCHES: 'Add surrounding lines to old_text so that it matches exactly once.',
  DIFF_MISMATCH: 'Call read_buffer around the failing hunk, rebuild the diff from the current text, and retry with the current changedtick.',
  PERMISSION_DENIED: 'The user has not allowed this. Ask them to change their vimrelay policy, or do without.',
  TIMEOUT: 'The editor did not answer before the deadline. It may be busy or waiting on a prompt; check it, then call read_buffer before retrying an edit.',
  CANCELLED: 'The call was cancelled. Call read_buffer before retrying an edit.',
  UNSUPPORTED: 'This editor cannot do that; use another tool or another editor.',
  INVALID_ARGUMENT: 'Fix the arguments as the message says; tools/list gives each tool\'s input schema.',
  EDITOR_ERROR: 'The editor reported an error; read the message, then adjust the call.',
  REVIEW_REJECTED: 'The user rejected the edit in their editor; nothing changed. Follow their reason (review.reason), or ask them what they want.',
  REVIEW_CONFLICT: 'The user changed the same lines while reviewing; nothing changed. Call read_buffer, then propose the edit again on the current text.',
  REVIEW_EXPIRED: 'Nobody decided on the review in time; nothing changed. Ask the user whether they still want the edit, then propose it again.',
  DECISION_PENDING:
    'Nothing ran yet: the user decides in the card shown in the chat, or in their editor. Tell them, then call review_status with `editor` and decision.id (wait_ms up to 25000) for the outcome.',
  DECISION_REFUSED: 'Only the user decides, in the card the assistant shows them; `refusal` says why this answer was refused.',
  REVIEW_NOT_FOUND: 'No review has that id in this editor (it ended long ago, or the editor restarted). Call read_buffer to see whether the edit landed.',
  FORGED: 'This answer was not made for this decision: answer the form the call asked with, in a retry of that same call.',
  REPLAYED: 'This answer was taken once already: each is taken once. Call the tool anew if the user still wants it.',
  NOT_PENDING: 'Nothing waits under that id any more (it was answered, closed or expired). Call the tool anew if the user still wants it.',
  ALREADY_DECIDED: 'The user decided this already, where `by` says; nothing more is taken.',
  NOT_OFFERED: 'The user\'s policy (ask_via) keeps this decision off this surface; they can answer it in the editor.',
  INVALID_ANSWER: 'That answer is not offered for this decision (allow is offered only for what could be shown whole).',
  INPUT_REQUIRED: 'The user is being asked in the assistant; the call continues when the client calls again with their answer.',
  INTERNAL: 'Something went wrong inside vimrelay. Retry once; if it persists, check the agent log.',
};

/** Builds a tool error; `hint` defaults to the code's standard next step. */
export function toolError(
  code: ErrorCode,
  message: string,
  details: Record<string, unknown> & { hint?: string } = {},
): ToolError {
  const { hint, ...rest } = details;
  return { code, message, hint: hint ?? DEFAULT_HINTS[code], ...rest };
}

/** Shorthand for a failed outcome. */
export function fail(
  code: ErrorCode,
  message: string,
  details: Record<string, unknown> & { hint?: string } = {},
): ToolOutcome {
  return { ok: false, error: toolError(code, message, details) };
}
