/**
 * Pure glue between the catalog and MCP: argument validation with our error shape, the JSON
 * Schema advertised in tools/list, and the CallToolResult built from an outcome.
 */
import { z } from 'zod';
import { fail, type ToolOutcome } from './errors.ts';
import type { ToolSpec } from './tool.ts';

/** MCP `Tool` as listed by tools/list (spec 2025-11-25 "Tool"). */
export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; [k: string]: unknown };
  outputSchema: { type: 'object'; [k: string]: unknown };
  annotations: ToolSpec['annotations'] & { title: string };
}

function objectSchema(schema: z.ZodObject, io: 'input' | 'output'): { type: 'object'; [k: string]: unknown } {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...json, type: 'object' };
}

export function listedTool(spec: ToolSpec): ListedTool {
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: objectSchema(spec.input, 'input'),
    outputSchema: objectSchema(spec.output, 'output'),
    annotations: { title: spec.title, ...spec.annotations },
  };
}

export type ParsedArgs = { ok: true; args: Record<string, unknown> } | { ok: false; outcome: ToolOutcome };

/**
 * Validates arguments against the tool's input schema. A failure is a tool error the model can
 * fix (spec 2025-11-25: input validation errors are tool execution errors), not a protocol error.
 */
export function parseArgs(spec: ToolSpec, args: unknown): ParsedArgs {
  const parsed = spec.input.safeParse(args ?? {});
  if (parsed.success) return { ok: true, args: parsed.data as Record<string, unknown> };
  return {
    ok: false,
    outcome: fail('INVALID_ARGUMENT', `Invalid arguments for ${spec.name}: ${z.prettifyError(parsed.error)}`, {
      hint: `Fix the arguments and retry; the input schema of ${spec.name} is in tools/list.`,
      issues: parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
    }),
  };
}

/** MCP CallToolResult: structuredContent plus the same JSON as text; errors as text only. */
export interface CallToolResultShape {
  [k: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: true;
}

export function callToolResult(outcome: ToolOutcome): CallToolResultShape {
  if (outcome.ok) {
    return { content: [{ type: 'text', text: JSON.stringify(outcome.data) }], structuredContent: outcome.data };
  }
  // No structuredContent on errors: clients validate it against the tool's outputSchema.
  return { content: [{ type: 'text', text: JSON.stringify({ error: outcome.error }) }], isError: true };
}
