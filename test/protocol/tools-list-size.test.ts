// The size of tools/list, which a hosted assistant puts in the model's context on every turn: the
// compact JSON Schema (protocol/result.ts `compactSchema`) keeps the catalog within a byte budget,
// and this test prints the size and fails when the catalog outgrows it. The compaction itself is
// checked on schemas where it must and must not change anything.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compactSchema, listedTool } from '../../protocol/result.ts';
import { listedTools } from '../../protocol/mcp-server.ts';
import { defineTool, READ_ONLY } from '../../protocol/tool.ts';

/**
 * The budget of the `tools` array as served, in bytes of UTF-8 JSON. Before compaction the list
 * was 73,724 bytes; what is left is descriptions (about 37 KB of prose: tool descriptions and
 * property descriptions) and the structure they describe. Raise it only with a reason.
 */
const TOOLS_LIST_BUDGET_BYTES = 66_000;

describe('tools/list size', () => {
  it(`stays within ${TOOLS_LIST_BUDGET_BYTES} bytes`, () => {
    const tools = listedTools();
    const bytes = new TextEncoder().encode(JSON.stringify({ tools })).byteLength;
    const outputs = tools.reduce((n, t) => n + JSON.stringify(t.outputSchema).length, 0);
    const inputs = tools.reduce((n, t) => n + JSON.stringify(t.inputSchema).length, 0);
    console.log(`tools/list: ${bytes} bytes for ${tools.length} tools (input schemas ${inputs}, output schemas ${outputs})`);
    expect(bytes).toBeLessThanOrEqual(TOOLS_LIST_BUDGET_BYTES);
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
        // Each bound constrains only its own type, so one type list accepts the same values.
        buffer: { type: ['integer', 'string'], minimum: 1, minLength: 1, maxLength: 10 },
        // An integer is a number: merged, each bound would constrain the other branch too.
        ratio: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'number', maximum: 0.5 }] },
        // An enum refuses the other types, so a union with one stays a union.
        either: { anyOf: [{ type: 'string', enum: ['all'] }, { type: 'integer' }] },
      },
      required: ['count', 'name', 'buffer', 'ratio', 'either'],
      additionalProperties: false,
    });
    // The compact output schema, before it is summarised for tools/list (schema-summary.test.ts).
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
