// The size of tools/list, which a hosted assistant puts in the model's context on every turn: the
// compact JSON Schema (protocol/result.ts `compactSchema`) and the output schemas in notation
// (protocol/schema-summary.ts) keep the whole catalog within a byte budget, while every field says
// what it means in its own description (descriptions.test.ts). This test prints the size for each
// toolset and each scope set (what a connector for it pays, README "Toolsets"), with an estimate in
// tokens, and fails when the whole catalog outgrows the budget or a narrower view is not smaller.
// The compaction itself is checked on schemas where it must and must not change anything.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listedFor, WHOLE_VIEW, type CatalogView } from '../../protocol/catalog-view.ts';
import { compactSchema, listedTool, type ListedTool } from '../../protocol/result.ts';
import { listedTools } from '../../protocol/mcp-server.ts';
import { defineTool, PERMISSION_CLASSES, READ_ONLY, serverGuard, type PermissionClass } from '../../protocol/tool.ts';
import { parseToolset, TOOLSET_NAMES, WHOLE_CATALOG, type Toolset } from '../../protocol/toolsets.ts';

/**
 * The budget of the `tools` array as served, in bytes of UTF-8 JSON per tool, on average: a
 * catalog grows with its tools, but each new tool pays for its descriptions with lean structure
 * (it was 1,752 bytes a tool for 27 tools, before reviews and self-standing descriptions).
 */
const TOOLS_LIST_BYTES_PER_TOOL = 1_900;

const bytes = (value: unknown): number => new TextEncoder().encode(JSON.stringify(value)).byteLength;

/** A rough count of tokens: about four bytes of English or JSON each. */
const tokens = (n: number): number => Math.round(n / 4);

/** `schema` without its descriptions: what is left is structure. */
function structure(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(structure);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key, value]) => key !== 'description' || typeof value !== 'string')
      // The keys of `properties` are names, not keywords.
      .map(([key, value]) => [key, key === 'properties' ? Object.fromEntries(Object.entries(value as object).map(([n, s]) => [n, structure(s)])) : structure(value)]),
  );
}

/** Bytes of `tools`, and how they split into tool descriptions, input and output schemas (and the prose in each). */
function split(tools: ListedTool[]) {
  const sum = (f: (t: ListedTool) => number): number => tools.reduce((n, t) => n + f(t), 0);
  const inputs = sum((t) => bytes(t.inputSchema));
  const outputs = sum((t) => bytes(t.outputSchema));
  return {
    total: bytes({ tools }),
    descriptions: sum((t) => bytes(t.description)),
    inputs,
    inputProse: inputs - sum((t) => bytes(structure(t.inputSchema))),
    outputs,
  };
}

function toolset(name: string): Toolset {
  const parsed = parseToolset(name);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.toolset;
}

/** The scope sets worth a line: an ordinary session's, read alone, every class but exec and terminal, and so on. */
const SCOPE_SETS: readonly (readonly PermissionClass[])[] = [
  ['read'],
  ['read', 'write'],
  ['read', 'write', 'open', 'save'],
  ['read', 'exec', 'terminal'],
  PERMISSION_CLASSES,
];

/** The toolsets worth a line: the whole catalog, each set alone, and the pairs the README suggests. */
const TOOLSETS = [WHOLE_CATALOG, ...TOOLSET_NAMES.map(toolset), toolset('read+edit'), toolset('lsp+show')];

const line = (what: string, view: CatalogView): string => {
  const tools = listedFor(view);
  const n = bytes({ tools });
  return `${what.padEnd(44)} ${String(tools.length).padStart(2)} tools ${String(n).padStart(6)} B  ~${String(tokens(n)).padStart(5)} tokens`;
};

describe('tools/list size', () => {
  it(`stays within ${TOOLS_LIST_BYTES_PER_TOOL} bytes a tool on average`, () => {
    const tools = listedTools();
    const s = split(tools);
    console.log(
      `tools/list: ${s.total} bytes for ${tools.length} tools (${Math.round(s.total / tools.length)} a tool, ~${tokens(s.total)} tokens): tool descriptions ${s.descriptions}, ` +
        `input schemas ${s.inputs} (descriptions ${s.inputProse}), output schemas in notation ${s.outputs}, ` +
        `the rest (names, titles, annotations) ${s.total - s.descriptions - s.inputs - s.outputs}`,
    );
    expect(s.total / tools.length).toBeLessThanOrEqual(TOOLS_LIST_BYTES_PER_TOOL);
  });

  it('prints what each toolset and each scope set costs; a narrower view costs less', () => {
    const lines = [
      'by toolset, every scope:',
      ...TOOLSETS.map((t) => line(t.label === '' ? '/mcp (every tool)' : `/mcp/${t.label}`, { toolset: t, scopes: PERMISSION_CLASSES })),
      'by scope set, at /mcp:',
      ...SCOPE_SETS.map((scopes) => line(`scopes ${scopes.join(' ')}`, { toolset: WHOLE_CATALOG, scopes })),
      'a toolset as its own connector asks for it:',
      ...TOOLSETS.slice(1).map((t) => line(`/mcp/${t.label} (${t.plainClasses.join(' ')})`, { toolset: t, scopes: t.plainClasses })),
    ];
    console.log(lines.join('\n'));
    const whole = bytes({ tools: listedFor(WHOLE_VIEW) });
    for (const t of TOOLSETS.slice(1)) expect(bytes({ tools: listedFor({ toolset: t, scopes: PERMISSION_CLASSES }) }), t.label).toBeLessThan(whole);
    for (const scopes of SCOPE_SETS.slice(0, -1)) expect(bytes({ tools: listedFor({ toolset: WHOLE_CATALOG, scopes }) }), scopes.join(' ')).toBeLessThan(whole);
  });

  it('carries no safe-integer bounds, no exclusiveMinimum on integers, no guard bounds and no repeated titles', () => {
    const text = JSON.stringify(listedTools());
    expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER));
    for (const tool of listedTools()) {
      const { editor, buffer } = (tool.inputSchema.properties ?? {}) as Record<string, unknown>;
      expect(JSON.stringify([editor, buffer]), tool.name).not.toMatch(/minLength|maxLength/);
    }
    for (const tool of listedTools()) expect(tool.annotations, tool.name).not.toHaveProperty('title');
  });
});

describe('compactSchema', () => {
  const spec = defineTool({
    name: 'sample',
    title: 'Sample',
    description: 'A sample.',
    permission: 'read',
    routing: 'editor',
    annotations: READ_ONLY,
    input: z
      .object({
        id: serverGuard(z.string().min(1).max(200)),
        count: z.number().int().positive().max(500),
        name: z.string().nullable(),
        buffer: z.union([z.number().int().positive(), z.string().min(1).max(10)]),
        ratio: z.union([z.number().int().min(1), z.number().max(0.5)]),
        either: z.union([z.enum(['all']), z.number().int()]),
      })
      .strict(),
    output: z.object({
      tick: z.number().int().nonnegative().nullable().describe('Null when not loaded.'),
      color: z.enum(['red', 'blue']).nullable(),
      inner: z.object({ line: z.number().int().positive() }),
    }),
  });

  it('keeps every constraint a value can meet or miss', () => {
    expect(listedTool(spec).inputSchema).toEqual({
      type: 'object',
      properties: {
        // A guard's bounds are the server's business: the string stays a string.
        id: { type: 'string' },
        count: { type: 'integer', minimum: 1, maximum: 500 },
        // Unions stay anyOf, nullable ones too (never a `type` list): every client's dialect can express it.
        name: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        buffer: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', minLength: 1, maxLength: 10 }] },
        ratio: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'number', maximum: 0.5 }] },
        either: { anyOf: [{ type: 'string', enum: ['all'] }, { type: 'integer' }] },
      },
      required: ['id', 'count', 'name', 'buffer', 'ratio', 'either'],
      additionalProperties: false,
    });
    const output = compactSchema(z.toJSONSchema(spec.output, { io: 'output' }), 'output') as { properties: unknown };
    expect(output.properties).toEqual({
      tick: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }], description: 'Null when not loaded.' },
      color: { anyOf: [{ type: 'string', enum: ['red', 'blue'] }, { type: 'null' }] },
      inner: { type: 'object', properties: { line: { type: 'integer', minimum: 1 } }, required: ['line'] },
    });
  });

  it('treats property names as names: a property called "maximum" or "anyOf" is kept', () => {
    const schema = { type: 'object', properties: { maximum: { type: 'integer' }, anyOf: { type: 'string' } } };
    expect(compactSchema(schema, 'output')).toEqual(schema);
  });
});
