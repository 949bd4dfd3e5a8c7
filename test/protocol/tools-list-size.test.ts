// The size of tools/list, which a hosted assistant puts in the model's context on every turn: the
// compact JSON Schema (protocol/result.ts `compactSchema`), the summarised output schemas
// (protocol/schema-summary.ts) and the conventions said once in the server's instructions
// (protocol/mcp-server.ts MCP_INSTRUCTIONS) keep the catalog within a byte budget. This test prints
// the size and its split and fails when the catalog outgrows the budget. The compaction itself is
// checked on schemas where it must and must not change anything.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compactSchema, listedTool, type ListedTool } from '../../protocol/result.ts';
import { listedTools } from '../../protocol/mcp-server.ts';
import { defineTool, READ_ONLY } from '../../protocol/tool.ts';

/**
 * The budget of the whole `tools` array as served, in bytes of UTF-8 JSON. It was 73,724 bytes
 * before compaction and 65,681 before the output schemas were summarised and the shared
 * conventions moved to the instructions. What is left is about 19 KB of structure (names, titles,
 * annotations, every argument's schema, every result's top level with `required`) and 19 KB of
 * prose. The budget is the current tools' share below plus room for the five code-navigation tools
 * (lsp_definition, lsp_references, lsp_hover, lsp_symbols, lsp_rename) at the size of a median tool
 * today (about 1,600 bytes): 47,000. They came in at about 1,690 each once their shared sentences
 * moved to the instructions, hence 47,250. A window showing a never_read file then lost its
 * cursor, context and view in the state tools (nullable, +82 bytes): 47,300. An editor then said
 * what it waits for its user to answer (`waiting_for`, EDITOR_BLOCKED) in list_editors and
 * connect_editor (+185 bytes): 47,500. Raise it only with a reason.
 */
const TOOLS_LIST_BUDGET_BYTES = 47_500;


const bytes = (value: unknown): number => new TextEncoder().encode(JSON.stringify(value)).byteLength;

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
    outputProse: outputs - sum((t) => bytes(structure(t.outputSchema))),
  };
}

describe('tools/list size', () => {
  it(`stays within ${TOOLS_LIST_BUDGET_BYTES} bytes`, () => {
    const tools = listedTools();
    const s = split(tools);
    console.log(
      `tools/list: ${s.total} bytes for ${tools.length} tools: tool descriptions ${s.descriptions}, ` +
        `input schemas ${s.inputs} (descriptions ${s.inputProse}), output schemas ${s.outputs} (descriptions and notation ${s.outputProse}), ` +
        `the rest (names, titles, annotations) ${s.total - s.descriptions - s.inputs - s.outputs}`,
    );
    expect(s.total).toBeLessThanOrEqual(TOOLS_LIST_BUDGET_BYTES);
  });


  it('carries no safe-integer bounds, no exclusiveMinimum on integers and no closed outputs', () => {
    const text = JSON.stringify(listedTools());
    expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER));
    for (const tool of listedTools()) expect(JSON.stringify(tool.outputSchema), tool.name).not.toContain('"additionalProperties":false');
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
        count: { type: 'integer', minimum: 1, maximum: 500 },
        name: { type: ['string', 'null'] },
        // Unions other than a nullable one stay anyOf, which every client's dialect can express.
        buffer: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', minLength: 1, maxLength: 10 }] },
        ratio: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'number', maximum: 0.5 }] },
        either: { anyOf: [{ type: 'string', enum: ['all'] }, { type: 'integer' }] },
      },
      required: ['count', 'name', 'buffer', 'ratio', 'either'],
      additionalProperties: false,
    });
    const output = compactSchema(z.toJSONSchema(spec.output, { io: 'output' }), 'output') as { properties: unknown };
    expect(output.properties).toEqual({
      tick: { type: ['integer', 'null'], minimum: 0, description: 'Null when not loaded.' },
      color: { anyOf: [{ type: 'string', enum: ['red', 'blue'] }, { type: 'null' }] },
      inner: { type: 'object', properties: { line: { type: 'integer', minimum: 1 } }, required: ['line'] },
    });
  });

  it('treats property names as names: a property called "maximum" or "anyOf" is kept', () => {
    const schema = { type: 'object', properties: { maximum: { type: 'integer' }, anyOf: { type: 'string' } } };
    expect(compactSchema(schema, 'output')).toEqual(schema);
  });
});
