// Every schema tools/list advertises (inputs and outputs, protocol/result.ts and
// protocol/schema-summary.ts) in the form every model provider's tool dialect takes: the rules of
// the MCP Inspector's schema lint (`--method tools/list --strict`, which test/e2e/peers.test.ts runs
// against both servers when the peer tools are installed): no `type` list (a nullable value is
// `anyOf` with a `{type: 'null'}` branch), no bare `true`/`false` where a schema goes, no `$ref`
// out of the document, and no schema that constrains nothing.
import { describe, expect, it } from 'vitest';
import { listedTools } from '../../protocol/mcp-server.ts';

/** Keywords whose value is one schema, a list of schemas, or a map of names to schemas (JSON Schema 2020-12 §10). */
const ONE = ['items', 'contains', 'not', 'propertyNames', 'if', 'then', 'else', 'additionalProperties', 'unevaluatedProperties', 'contentSchema'];
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', 'dependentSchemas', '$defs'];
/** Where `true` or `false` is a switch rather than a schema standing for a value. */
const SWITCHES = new Set(['additionalProperties', 'unevaluatedProperties']);
/** Keywords that constrain a value: a schema with none of them accepts anything. */
const CONSTRAINING = /^(type|enum|const|multipleOf|maximum|exclusiveMaximum|minimum|exclusiveMinimum|maxLength|minLength|pattern|format|maxItems|minItems|uniqueItems|maxContains|minContains|maxProperties|minProperties|required|dependentRequired|allOf|anyOf|oneOf|not|items|prefixItems|contains|properties|patternProperties|additionalProperties|unevaluatedItems|unevaluatedProperties|propertyNames|dependentSchemas|\$ref)$/;

/** What the lint would say of `node` at `path` and below it, one line each. */
function findings(node: unknown, path: string, keyword?: string): string[] {
  if (typeof node === 'boolean') return keyword !== undefined && SWITCHES.has(keyword) ? [] : [`${path}: bare ${String(node)} for a schema`];
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return [];
  const schema = node as Record<string, unknown>;
  const own: string[] = [];
  if (Array.isArray(schema.type)) own.push(`${path}: type is a list (${JSON.stringify(schema.type)})`);
  if (typeof schema.$ref === 'string' && !schema.$ref.startsWith('#')) own.push(`${path}: $ref out of the document`);
  if (keyword !== 'not' && !Object.keys(schema).some((k) => CONSTRAINING.test(k))) own.push(`${path}: constrains nothing`);
  const below = [
    ...ONE.filter((k) => k in schema).flatMap((k) => findings(schema[k], `${path}.${k}`, k)),
    ...LIST.filter((k) => Array.isArray(schema[k])).flatMap((k) => (schema[k] as unknown[]).flatMap((s, i) => findings(s, `${path}.${k}[${i}]`, k))),
    ...MAP.filter((k) => typeof schema[k] === 'object' && schema[k] !== null).flatMap((k) =>
      Object.entries(schema[k] as Record<string, unknown>).flatMap(([name, s]) => findings(s, `${path}.${k}.${name}`, k)),
    ),
  ];
  return [...own, ...below];
}

describe('tools/list schemas', () => {
  it.each(listedTools().map((tool) => [tool.name, tool] as const))('%s: portable input and output schemas', (_name, tool) => {
    expect([...findings(tool.inputSchema, 'inputSchema'), ...findings(tool.outputSchema, 'outputSchema')]).toEqual([]);
  });

  it('still finds what the lint finds (the check above can fail)', () => {
    expect(findings({ type: 'object', properties: { a: { type: ['string', 'null'] }, b: true, c: {}, d: { $ref: 'https://x.test/s' } } }, 's')).toEqual([
      's.properties.a: type is a list (["string","null"])',
      's.properties.b: bare true for a schema',
      's.properties.c: constrains nothing',
      's.properties.d: $ref out of the document',
    ]);
  });
});
