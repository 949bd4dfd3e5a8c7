// Every argument and every result field a model must understand says what it means in its own
// description: a tool must make sense to a model that sees that tool alone (a host may not show
// the server's instructions, and a tool found through a client's tool search comes without them).
// This walks every tool's input and output schema, nested fields included (through objects, list
// items and union branches), and fails on a field whose description is missing or ten characters
// or fewer, unless it is a result field or a nested one whose name says it all
// (NAMES_THAT_SAY_IT_ALL, each with why). An argument a model writes is always described: an
// argument `line` or `path` must say how it counts or what it is relative to.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compactSchema } from '../../protocol/result.ts';
import { TOOLS } from '../../protocol/tools/index.ts';

type JsonSchema = { [keyword: string]: unknown };

/**
 * Names of result fields and nested fields whose meaning the name and type give. Positions and ranges
 * say how they count (1-based, characters, end inclusive or not) in the description of the field
 * that holds them, which is checked like any other.
 */
const NAMES_THAT_SAY_IT_ALL: Readonly<Record<string, string>> = {
  line: 'a line number inside a position or range, whose own description says how it counts',
  col: 'a column inside a position or range, likewise',
  end_line: 'the end of a range, likewise',
  end_col: 'the end of a range, likewise',
  buf: "a buffer's number, which every `buffer` argument takes",
  path: "a file's path (string|null: null for a buffer with no file)",
  cwd: 'a working directory',
  pid: 'a process id',
  version: "an editor's version",
  count: 'how many items the list beside it holds',
  total_lines: 'how many lines the buffer has',
  modified: 'whether a buffer has unsaved changes',
  filetype: "Vim's 'filetype' of a buffer, by its name",
  message: "a diagnostic's text, inside a diagnostic",
  error: 'a count of error diagnostics, inside a field of counts by severity',
  warn: 'likewise, warnings',
  info: 'likewise, information',
  hint: 'likewise, hints',
};

/** The shortest description that says something. */
const MIN_CHARS = 11;

const isSchema = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `path: what is wrong` for every undescribed field under `schema`. `argument`: its properties are
 * a tool's arguments, which the allowlist does not cover.
 */
function undescribed(schema: JsonSchema, path: string, argument = false): string[] {
  const out: string[] = [];
  const properties = isSchema(schema.properties) ? schema.properties : {};
  for (const [name, property] of Object.entries(properties)) {
    if (!isSchema(property)) continue;
    const description = typeof property.description === 'string' ? property.description.trim() : '';
    const exempt = !argument && name in NAMES_THAT_SAY_IT_ALL;
    if (!exempt && description.length < MIN_CHARS) out.push(`${path}${name}: ${description === '' ? 'no description' : JSON.stringify(description)}`);
    out.push(...undescribed(property, `${path}${name}.`));
  }
  if (isSchema(schema.items)) out.push(...undescribed(schema.items, `${path}[].`));
  for (const key of ['anyOf', 'oneOf']) {
    const branches = schema[key];
    if (Array.isArray(branches)) for (const branch of branches) if (isSchema(branch)) out.push(...undescribed(branch, path, argument));
  }
  return out;
}

/** The full JSON Schema of `schema`, as tools/list derives its advertised forms from it. */
const full = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => compactSchema(z.toJSONSchema(schema, { io, unrepresentable: 'any' }), io) as JsonSchema;

describe('every field says what it means', () => {
  it.each(TOOLS.map((spec) => [spec.name, spec] as const))('%s: every argument and result field, nested ones too', (_name, spec) => {
    expect([...undescribed(full(spec.input, 'input'), 'input.', true), ...undescribed(full(spec.output, 'output'), 'output.')]).toEqual([]);
  });

  it('finds an undescribed field at any depth (the check above can fail)', () => {
    const schema = full(
      z.object({
        ok: z.string().describe('Described well enough.'),
        terse: z.number().describe('Editor id.'),
        line: z.number(),
        list: z.array(z.object({ inner: z.boolean() })).describe('A list of things.'),
        either: z.union([z.object({ deep: z.string() }), z.null()]).describe('One or none.'),
      }),
      'output',
    );
    expect(undescribed(schema, '')).toEqual(['terse: "Editor id."', 'list.[].inner: no description', 'either.deep: no description']);
    // As arguments, even a name that says it all must say how it counts.
    expect(undescribed(schema, '', true)).toEqual(['terse: "Editor id."', 'line: no description', 'list.[].inner: no description', 'either.deep: no description']);
  });
});
