/**
 * The editor call contract, shared by both adapters and the dispatcher (ARCHITECTURE.md "One call,
 * end to end"): what a call carries into an editor (its abort signal and its deadline), the one
 * error that says the editor went away, the one reader of an editor's `{ok, data}` / `{ok: false,
 * error}` answer, and the one place that decides whether a call that did not finish was a TIMEOUT,
 * a CANCELLED, an EDITOR_OFFLINE or an editor error. Pure, apart from the error classes.
 */
import { z } from 'zod';
import { ErrorCode, fail, type ToolOutcome, type ToolSpec } from '../../protocol/index.ts';

/** What an editor is given with each call. */
export interface CallControl {
  /** Aborts waiting: at the deadline (reason `CallDeadline`) or on cancellation (`CallCancelled`). */
  readonly signal: AbortSignal;
  /**
   * The call's deadline, in epoch milliseconds. Tools that must not act behind the caller's back
   * (commands, keys, terminal text, saves) are not started inside the editor after it.
   */
  readonly deadline: number;
}

/** The abort reason at a call's deadline. */
export class CallDeadline extends Error {
  override name = 'CallDeadline';
  constructor() {
    super('the call reached its deadline');
  }
}

/** The abort reason when the client cancelled the call (or the link that carried it dropped). */
export class CallCancelled extends Error {
  override name = 'CallCancelled';
  constructor() {
    super('the call was cancelled');
  }
}

/** The editor's connection closed (it exited, or its channel or socket broke). */
export class EditorGone extends Error {
  override name = 'EditorGone';
  constructor(what: string) {
    super(`the ${what} connection closed`);
  }
}

/** A control for a call with `ms` left, for callers with no deadline of their own (tests, probes). */
export function controlWithin(ms: number): CallControl {
  return { signal: AbortSignal.timeout(ms), deadline: Date.now() + ms };
}

/** Whether an abort reason is the call's deadline (ours, or an `AbortSignal.timeout`). */
export function isDeadline(reason: unknown): boolean {
  return reason instanceof CallDeadline || (reason instanceof Error && reason.name === 'TimeoutError');
}

/** The outcome of a call stopped by `signal` before it finished: TIMEOUT or CANCELLED. */
export function abortedOutcome(signal: AbortSignal, timeoutHint?: string): ToolOutcome {
  if (isDeadline(signal.reason)) {
    return fail('TIMEOUT', 'The editor did not answer before the deadline.', timeoutHint === undefined ? {} : { hint: timeoutHint });
  }
  return fail('CANCELLED', 'The call was cancelled before the editor answered.');
}

/** The outcome of a call into an editor that threw `error`; `signal` is the call's. */
export function failedOutcome(error: unknown, signal: AbortSignal, spec?: ToolSpec): ToolOutcome {
  if (error instanceof EditorGone) {
    return fail('EDITOR_OFFLINE', 'The editor went away during the call; the change may or may not have been made.');
  }
  if (signal.aborted && error === signal.reason) return abortedOutcome(signal, spec?.timeoutHint);
  if (error instanceof EditorError) return fail('EDITOR_ERROR', error.message);
  return fail('INTERNAL', error instanceof Error ? error.message : String(error));
}

/** The editor answered a request with an error of its own (not a tool failure). */
export class EditorError extends Error {
  override name = 'EditorError';
}

const EditorResult = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), data: z.record(z.string(), z.unknown()) }),
  z.object({
    ok: z.literal(false),
    error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional() }).catchall(z.unknown()),
  }),
]);

/**
 * The outcome of a tool whose editor function answered `raw`: its error as a tool error (an
 * unknown code becomes INTERNAL), or its data checked against the tool's output schema (a mismatch
 * becomes INTERNAL and the data does not pass). `editor` names the editor kind in messages.
 */
export function readResult(spec: ToolSpec, raw: unknown, editor: string): ToolOutcome {
  const result = EditorResult.safeParse(raw);
  if (!result.success) return fail('INTERNAL', `${editor} returned a malformed result for ${spec.name}.`);
  if (!result.data.ok) {
    const { code, message, ...details } = result.data.error;
    const known = ErrorCode.safeParse(code);
    return fail(known.success ? known.data : 'INTERNAL', message, details);
  }
  const data = spec.output.safeParse(result.data.data);
  if (!data.success) {
    return fail('INTERNAL', `The ${spec.name} result does not match its output schema: ${z.prettifyError(data.error)}`);
  }
  return { ok: true, data: data.data as Record<string, unknown> };
}
