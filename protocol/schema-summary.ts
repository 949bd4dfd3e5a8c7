/**
 * The outputSchema a tool advertises in tools/list: its full output schema's top level, with what
 * lies below it written out in a compact TypeScript-like notation in each property's description.
 *
 * Why it may be looser than the zod schema: the server checks every result against the full zod
 * schema before it leaves (protocol/mcp-server.ts `checkOutput`, and the agent's reading of each
 * answer), so the advertised schema only has to be true of every result (MCP 2025-11-25 and
 * 2026-07-28 "server/tools", Output Schema: servers MUST provide structured results that conform;
 * clients SHOULD validate against it). It keeps what a client validates and a model reads at the
 * top: every property, its JSON type, `required`, enums and descriptions. It drops value bounds
 * (`minimum`, `maxLength`, ...) and, for a property holding objects, the nested schema, which its
 * description gives instead:
 *
 *   {win, role: 'active'|'other', cursor: {line, col}, folds: {start_line, end_line}[]}[]
 *
 * A field written without a type is an integer; `?` marks an optional field; a nested
 * description follows its field as a block comment. MCP_INSTRUCTIONS (protocol/mcp-server.ts) states
 * the notation once. Pure: JSON Schema in, JSON Schema out.
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

/** Whether an object schema appears anywhere in `schema`: such a property is summarised. */
function holdsObjects(schema: JsonSchema): boolean {
  if (typesOf(schema).includes('object')) return true;
  if (isSchema(schema.items) && holdsObjects(schema.items)) return true;
  return branchesOf(schema).some(holdsObjects);
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
 * A schema of the types `types`: `{type}` for one, `anyOf` with one branch per type for several
 * (never a `type` list, which clients that map tool schemas onto a one-type dialect refuse or
 * drop: protocol/result.ts `compactSchema`), nothing for none.
 */
function typed(types: readonly string[]): JsonSchema {
  if (types.length > 1) return { anyOf: types.map((type) => ({ type })) };
  return types[0] === undefined ? {} : { type: types[0] };
}

/** A property holding no objects, as advertised: its types, enum, items and description, no bounds. */
function plainProperty(schema: JsonSchema): JsonSchema {
  const branches = branchesOf(schema);
  const out: JsonSchema = {};
  if (branches.length > 0) out.anyOf = branches.map(plainProperty);
  else {
    Object.assign(out, typed(typesOf(schema)));
    if (Array.isArray(schema.enum)) out.enum = schema.enum;
    else if ('const' in schema) out.const = schema.const;
  }
  if (isSchema(schema.items)) out.items = plainProperty(schema.items);
  if (typeof schema.description === 'string') out.description = schema.description;
  return out;
}

/** A property holding objects, as advertised: its JSON types, and its notation before its own description. */
function summarisedProperty(schema: JsonSchema): JsonSchema {
  const description = typeof schema.description === 'string' ? `${notation(schema)}. ${schema.description}` : notation(schema);
  return { ...typed(typesOf(schema)), description };
}

/**
 * The advertised form of an output schema whose root is an object (see the module header): every
 * top-level property with its JSON type(s), enum and description, `required` as it was, and the
 * structure of any property holding objects in notation in its description.
 */
export function summariseOutputSchema(schema: JsonSchema): JsonSchema {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const out: JsonSchema = {
    type: 'object',
    properties: Object.fromEntries(
      Object.entries(properties)
        .filter((e): e is [string, JsonSchema] => isSchema(e[1]))
        .map(([name, property]) => [name, holdsObjects(property) ? summarisedProperty(property) : plainProperty(property)]),
    ),
  };
  if (Array.isArray(schema.required) && schema.required.length > 0) out.required = schema.required;
  if (typeof schema.description === 'string') out.description = schema.description;
  return out;
}
