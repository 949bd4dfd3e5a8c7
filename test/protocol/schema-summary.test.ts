// The advertised output schemas (protocol/schema-summary.ts): the notation on hand-made schemas,
// and, for every tool in the catalog, that the advertised schema is true of every result the full
// zod schema accepts (values made from the full schema, checked by zod and then by both validators
// clients use: @cfworker/json-schema, which the servers use, and the SDK client's Ajv, its default
// on Node and what the MCP Inspector uses), refuses what is not an object, and names every field
// the full schema has, at every depth, with its description. (The tests' result helpers check
// each result against the full schema: test/helpers/mcp.ts.)
import { Validator, type Schema } from '@cfworker/json-schema';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listedTool } from '../../protocol/result.ts';
import { notation, summariseOutputSchema, type JsonSchema } from '../../protocol/schema-summary.ts';
import { TOOLS } from '../../protocol/tools/index.ts';

const json = (schema: z.ZodType): JsonSchema => z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as JsonSchema;

describe('notation', () => {
  it('writes integers as bare names, marks optional fields and keeps nested descriptions as comments', () => {
    const schema = z.object({
      win: z.number().int(),
      role: z.enum(['active', 'other']),
      cursor: z.object({ line: z.number().int(), col: z.number().int() }),
      folds: z.array(z.object({ start_line: z.number().int(), end_line: z.number().int() })).describe('closed'),
      title: z.string().nullable(),
      floating: z.boolean().optional(),
      ratio: z.number(),
    });
    expect(notation(json(schema))).toBe(
      "{win, role: 'active'|'other', cursor: {line, col}, folds: {start_line, end_line}[] /*closed*/, title: string|null, floating?: bool, ratio: number}",
    );
  });

  it('keeps unions whole inside arrays, and nullable objects as unions', () => {
    expect(notation(json(z.array(z.union([z.string(), z.number().int()]))))).toBe('(string|int)[]');
    expect(notation(json(z.array(z.enum(['a', 'b']))))).toBe("('a'|'b')[]");
    expect(notation(json(z.array(z.string().nullable())))).toBe('(string|null)[]');
    expect(notation(json(z.object({ a: z.number().int() }).nullable()))).toBe('{a}|null');
    expect(notation(json(z.array(z.array(z.boolean()))))).toBe('bool[][]');
  });
});

describe('summariseOutputSchema', () => {
  const full = json(
    z.object({
      count: z.number().int().nonnegative().describe('How many.'),
      color: z.enum(['red', 'blue']).nullable(),
      lines: z.array(z.string().max(10)),
      inner: z.object({ line: z.number().int().positive() }).describe('Where.'),
      items: z.array(z.object({ id: z.number().int(), note: z.string().nullable().describe('null: none') })).optional(),
    }),
  );

  it('is an object whose description is the whole result in notation, bounds left out', () => {
    expect(summariseOutputSchema(full)).toEqual({
      type: 'object',
      description: "{count /*How many.*/, color: 'red'|'blue'|null, lines: string[], inner: {line} /*Where.*/, items?: {id, note: string|null /*null: none*/}[]}",
    });
  });

  it("follows the notation with the root's own description", () => {
    expect(summariseOutputSchema(json(z.object({ a: z.boolean() }).describe('Or an error.')))).toEqual({ type: 'object', description: '{a: bool}. Or an error.' });
  });
});

/** A value of `schema`: every optional field present and every union's first branch (`full`), or the fewest fields, nulls and empty lists (`least`). */
function sample(schema: JsonSchema, kind: 'full' | 'least'): unknown {
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (branches) return sample(kind === 'least' ? (branches.find((b) => b.type === 'null') ?? branches[0]!) : branches[0]!, kind);
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('const' in schema) return schema.const;
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const type = kind === 'least' && types.includes('null') ? 'null' : types.find((t) => t !== 'null');
  const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 0;
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return true;
    case 'integer':
    case 'number':
      return Math.max(min, 1);
    case 'string':
      return 'x';
    case 'array':
      return kind === 'least' ? [] : [sample(schema.items as JsonSchema, kind)];
    case 'object': {
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const entries = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).filter(([name]) => kind === 'full' || required.has(name));
      return Object.fromEntries(entries.map(([name, property]) => [name, sample(property, kind)]));
    }
    default:
      throw new Error(`no sample for ${JSON.stringify(schema)}`);
  }
}

/** Every property under `schema`, at every depth, with its description. */
function fields(schema: JsonSchema): { name: string; description?: string }[] {
  const own = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
  return [
    ...own.flatMap(([name, property]) => [{ name, ...(typeof property.description === 'string' ? { description: property.description } : {}) }, ...fields(property)]),
    ...(schema.items ? fields(schema.items as JsonSchema) : []),
    ...(((schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined) ?? []).flatMap(fields),
  ];
}

const ajv = new AjvJsonSchemaValidator();

/** Whether `value` matches `schema` for @cfworker/json-schema; fails the test when the SDK client's Ajv disagrees. */
function valid(schema: unknown, value: unknown): boolean {
  const cfworker = new Validator(schema as Schema, '2020-12', false).validate(value).valid;
  expect(ajv.getValidator(schema as Parameters<AjvJsonSchemaValidator['getValidator']>[0])(value).valid, 'Ajv agrees with @cfworker/json-schema').toBe(cfworker);
  return cfworker;
}

describe.each(TOOLS.map((spec) => [spec.name, spec] as const))('the advertised outputSchema of %s', (_name, spec) => {
  const advertised = listedTool(spec).outputSchema;
  const fullSchema = json(spec.output);

  it('accepts results the full schema accepts, and nothing but an object', () => {
    for (const kind of ['full', 'least'] as const) {
      const value = sample(fullSchema, kind);
      expect(spec.output.safeParse(value).success, `the ${kind} sample is a valid ${spec.name} result`).toBe(true);
      expect(valid(advertised, value), `${kind}: ${JSON.stringify(value)}`).toBe(true);
    }
    for (const value of [[], 'x', 1, null]) expect(valid(advertised, value), JSON.stringify(value)).toBe(false);
  });

  it('names every field at every depth, each with its description', () => {
    const text = String(advertised.description);
    const missing = fields(fullSchema).filter(
      ({ name, description }) => !new RegExp(`[{,] ?${name}[?:,}/ ]`).test(text) || (description !== undefined && !text.includes(`/*${description}*/`)),
    );
    expect(missing).toEqual([]);
  });
});
