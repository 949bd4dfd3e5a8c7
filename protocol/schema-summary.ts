/**
 * The outputSchema a tool advertises in tools/list: an object whose description gives the whole
 * result in a compact TypeScript-like notation, every field with its description as a comment:
 *
 *   {win, role: 'active'|'other', cursor: {line, col}|null, folds: {start_line, end_line}[]}
 *
 * A field written without a type is an integer; `?` marks an optional field; a description follows
 * its field as a block comment (slash-star ... star-slash). A model reads this in a fraction of the bytes the same result takes
 * as JSON Schema properties (tools/list is read on every turn: protocol/result.ts), and each field
 * says what it means there, with no need for the server's instructions.
 *
 * Why it may be looser than the zod schema: the server checks every result against the full zod
 * schema before it leaves (protocol/mcp-server.ts `checkOutput`, and the agent's reading of each
 * answer), so the advertised schema only has to be true of every result (MCP 2025-11-25 and
 * 2026-07-28 "server/tools", Output Schema: servers MUST provide structured results that conform;
 * clients SHOULD validate against it): every result is an object, and that is what a client
 * validates. The notation keeps every field, its type, whether it may be absent or null, enums
 * and descriptions; it drops value bounds (`minimum`, `maxLength`, ...). Pure: JSON Schema in,
 * JSON Schema out.
 */

/** A JSON Schema (2020-12) node, as zod's toJSONSchema and compactSchema (protocol/result.ts) write it. */
export type JsonSchema = { [keyword: string]: unknown };

const isSchema = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The branches of a union node (`anyOf`, `oneOf`); none for any other node. */
const branchesOf = (schema: JsonSchema): JsonSchema[] => [schema.anyOf, schema.oneOf].flatMap((b) => (Array.isArray(b) ? b.filter(isSchema) : []));

/** The node's own types: its `type` (one or a list), else those of its anyOf / oneOf branches, else those its enum or const values have. */
function typesOf(schema: JsonSchema): string[] {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === 'string');
  const branches = branchesOf(schema);
  if (branches.length > 0) return [...new Set(branches.flatMap(typesOf))];
  const values = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : [];
  return [...new Set(values.map((v) => (v === null ? 'null' : Number.isInteger(v) ? 'integer' : typeof v === 'number' ? 'number' : typeof v)))];
}

/** Whether the notation of `schema` is a union at its top (`A|B`), which `[]` must not split. */
function isUnion(schema: JsonSchema): boolean {
  if (Array.isArray(schema.enum)) return schema.enum.length > 1;
  if ('const' in schema) return false;
  const branches = branchesOf(schema);
  if (branches.length > 0) return branches.length > 1 || branches.some(isUnion);
  return typesOf(schema).length > 1;
}

const literal = (value: unknown): string => (typeof value === 'string' ? `'${value}'` : JSON.stringify(value));

const NAMES: Readonly<Record<string, string>> = { integer: 'int', boolean: 'bool' };

/** The notation of one type of `schema` (`schema` restricted to type `type`). */
function typeNotation(schema: JsonSchema, type: string): string {
  if (type === 'object') return objectNotation(schema);
  if (type === 'array') {
    if (!isSchema(schema.items)) return 'unknown[]';
    return isUnion(schema.items) ? `(${notation(schema.items)})[]` : `${notation(schema.items)}[]`;
  }
  return NAMES[type] ?? type;
}

function objectNotation(schema: JsonSchema): string {
  const properties = isSchema(schema.properties) ? Object.entries(schema.properties).filter((e): e is [string, JsonSchema] => isSchema(e[1])) : [];
  if (properties.length === 0) return 'object';
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const fields = properties.map(([name, property]) => {
    const optional = required.has(name) ? '' : '?';
    const type = notation(property);
    // An integer is written as its name alone: most nested fields are lines, columns and counts.
    const field = type === 'int' ? `${name}${optional}` : `${name}${optional}: ${type}`;
    return typeof property.description === 'string' ? `${field} /*${property.description}*/` : field;
  });
  return `{${fields.join(', ')}}`;
}

/**
 * The TypeScript-like notation of `schema`: `int`, `bool`, `string`, `number`, `null`, literal
 * unions for enums (`'a'|'b'`), `T[]`, `{a, b: string, c?: bool}`, `A|B`.
 * Descriptions of nested properties become comments; the node's own description is not included.
 */
export function notation(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map(literal).join('|');
  if ('const' in schema) return literal(schema.const);
  const branches = branchesOf(schema);
  if (branches.length > 0) return branches.map(notation).join('|');
  const types = typesOf(schema);
  return types.length === 0 ? 'unknown' : types.map((t) => typeNotation(schema, t)).join('|');
}

/**
 * The advertised form of an output schema whose root is an object (see the module header):
 * `{type: 'object', description}`, the description the notation of the whole result, followed by
 * the root's own description if it has one.
 */
export function summariseOutputSchema(schema: JsonSchema): JsonSchema {
  const own = typeof schema.description === 'string' ? `. ${schema.description}` : '';
  return { type: 'object', description: `${notation(schema)}${own}` };
}
