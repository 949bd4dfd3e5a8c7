/**
 * Pure glue between the catalog and MCP: argument validation with our error shape, the JSON
 * Schema advertised in tools/list, and the CallToolResult built from an outcome.
 */
import { z } from 'zod';
import { fail, type ToolOutcome } from './errors.ts';
import { summariseOutputSchema } from './schema-summary.ts';
import { SERVER_GUARDS, type ToolSpec } from './tool.ts';

/** MCP `Tool` as listed by tools/list (spec 2025-11-25 "Tool"). */
export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; [k: string]: unknown };
  outputSchema: { type: 'object'; [k: string]: unknown };
  annotations: ToolSpec['annotations'];
}

/** The JSON Schema of `schema`, without the length bounds of the server's guards (tool.ts `serverGuard`). */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      if (!SERVER_GUARDS.has(zodSchema)) return;
      delete jsonSchema.minLength;
      delete jsonSchema.maxLength;
    },
  }) as Record<string, unknown>;
  return json;
}

function objectSchema(schema: z.ZodObject, io: 'input' | 'output'): { type: 'object'; [k: string]: unknown } {
  const json = jsonSchemaOf(schema, io);
  return { ...(compactSchema(json, io) as Record<string, unknown>), type: 'object' };
}

/** JavaScript's safe-integer bound, which zod writes on every `z.number().int()`. */
const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

/**
 * The same JSON Schema (2020-12) in fewer bytes: tools/list is read by a model on every turn, so
 * every byte is context. Nothing a client or a model could act on is lost:
 *   - the safe-integer bounds zod adds to every integer (±2^53-1) go: no JSON number vimrelay
 *     sends or takes comes near them, and the arguments are validated with zod anyway; so do the
 *     length bounds of the server's guards (tool.ts `serverGuard`: an editor id, a path), for
 *     the same reasons (`jsonSchemaOf`);
 *   - `exclusiveMinimum: n` on an integer becomes the equal `minimum: n + 1`;
 *   - a nullable value is `anyOf: [{type: T, ...}, {type: 'null'}]`, each branch of one `type`,
 *     and a `type` list zod writes (`type: ['string', 'null']`) becomes such an `anyOf`: a `type`
 *     list is legal JSON Schema, but a client that maps tool schemas onto a one-type dialect (the
 *     OpenAPI subset of Gemini's function declarations) may refuse the tool or drop its
 *     constraints. The MCP Inspector's schema lint warns of every such list and suggests this
 *     form instead (protocol/schema-summary.ts keeps to it too). The node's other keywords stay
 *     beside the `anyOf`: each constrains only values of its own type, as it did;
 *   - output schemas lose `additionalProperties: false`: it describes no field, and a client must
 *     not fail on a field it does not know. Input schemas keep it (strict inputs: an unknown
 *     argument is refused, and the schema says so).
 */
export function compactSchema(schema: unknown, io: 'input' | 'output'): unknown {
  if (Array.isArray(schema)) return schema.map((s) => compactSchema(s, io));
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if ((key === 'maximum' && value === SAFE_INTEGER) || (key === 'minimum' && value === -SAFE_INTEGER)) continue;
    if (key === 'additionalProperties' && value === false && io === 'output') continue;
    // The keys of `properties` are names, not keywords: only their values are schemas.
    out[key] = key === 'properties' ? mapValues(value, io) : compactSchema(value, io);
  }
  if (out.type === 'integer' && typeof out.exclusiveMinimum === 'number') {
    out.minimum = out.exclusiveMinimum + 1;
    delete out.exclusiveMinimum;
  }
  return typeListAsAnyOf(out);
}

/** `{type: [A, B], ...rest}` as `{anyOf: [{type: A}, {type: B}], ...rest}` (see compactSchema); a node that has its own `anyOf` is left as it is. */
function typeListAsAnyOf(schema: Record<string, unknown>): Record<string, unknown> {
  const { type, ...rest } = schema;
  if (!Array.isArray(type) || 'anyOf' in rest) return schema;
  return type.length === 1 ? { type: type[0], ...rest } : { anyOf: type.map((t: unknown) => ({ type: t })), ...rest };
}

function mapValues(properties: unknown, io: 'input' | 'output'): unknown {
  if (typeof properties !== 'object' || properties === null) return properties;
  return Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, compactSchema(s, io)]));
}

export function listedTool(spec: ToolSpec): ListedTool {
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: objectSchema(spec.input, 'input'),
    // In notation (schema-summary.ts): results are checked against the full schema before they leave.
    outputSchema: { ...summariseOutputSchema(objectSchema(spec.output, 'output')), type: 'object' },
    // The title once, at the top (spec 2025-06-18 "Tool"); annotations.title would repeat it.
    annotations: { ...spec.annotations },
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
  // `_meta` goes to the tool's app, never into the text the model reads (protocol/app/card.ts).
  const meta = outcome.meta === undefined ? {} : { _meta: outcome.meta };
  if (outcome.ok) {
    return { content: [{ type: 'text', text: JSON.stringify(outcome.data) }], structuredContent: outcome.data, ...meta };
  }
  // No structuredContent on errors: clients validate it against the tool's outputSchema.
  return { content: [{ type: 'text', text: JSON.stringify({ error: outcome.error }) }], isError: true, ...meta };
}
