/**
 * Turns what a Neovim tool call produced into a ToolOutcome: the Lua result `{ok, data}` /
 * `{ok, error}` (data checked against the tool's output schema), or the error the call threw
 * (socket closed, aborted, Neovim error). Pure.
 */
import { z } from 'zod';
import { ErrorCode, fail, type ToolOutcome, type ToolSpec } from '../../../protocol/index.ts';
import { EditorOffline, EditorRpcError } from './connection.ts';

const LuaResult = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), data: z.record(z.string(), z.unknown()) }),
  z.object({
    ok: z.literal(false),
    error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional() }).catchall(z.unknown()),
  }),
]);

/** The outcome of a tool whose Lua returned `raw`. */
export function outcomeFromLua(spec: ToolSpec, raw: unknown): ToolOutcome {
  const result = LuaResult.safeParse(raw);
  if (!result.success) return fail('INTERNAL', `Neovim returned a malformed result for ${spec.name}.`);
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

/** The outcome of a call that threw `error`; `signal` is the call's. */
export function outcomeFromError(error: unknown, signal: AbortSignal): ToolOutcome {
  if (error instanceof EditorOffline) {
    return fail('EDITOR_OFFLINE', 'The editor went away during the call; the change may or may not have been made.');
  }
  if (signal.aborted && error === signal.reason) {
    return isTimeout(error)
      ? fail('TIMEOUT', 'The editor did not answer before the deadline.')
      : fail('CANCELLED', 'The call was cancelled before the editor answered.');
  }
  if (error instanceof EditorRpcError) return fail('EDITOR_ERROR', error.message);
  return fail('INTERNAL', error instanceof Error ? error.message : String(error));
}

function isTimeout(reason: unknown): boolean {
  return reason instanceof Error && reason.name === 'TimeoutError';
}
