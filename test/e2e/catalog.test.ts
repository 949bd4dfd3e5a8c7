// The catalog's conventions (PROTOCOL.md "Tools"), checked on the tools/list
// a real client gets from `vimrelay serve --stdio`, for every tool in the catalog at run time:
// descriptions that say when to use the tool and point to another, honest annotations, enums for
// categorical parameters, strict inputs, object output schemas and documented caps (the results'
// structure read from the catalog's full output schemas, which the listed ones summarise in
// notation: protocol/schema-summary.ts). The same list
// is served by every chain (tools-suite.ts checks that), so checking one is checking all.
import type { Client, Tool } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonSchemaOf, toolByName, TOOLS, type ToolSpec } from '../../protocol/index.ts';
import { CLI, isolatedEnv } from '../helpers/agent-process.ts';
import { assertMatchesSchema, connectStdio, errorOf } from '../helpers/mcp.ts';

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: unknown;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
};

/** Parameter names that are categorical wherever they appear: a string there must be an enum. */
const CATEGORICAL = /(^|_)(mode|severity|color|colour|position|kind|direction|level|format|role|state|action|scope|side)$/;

/** A cap stated in words and a number: "at most 50", "up to 10000", "Caps: 200 buffers", "max 5". */
const STATES_A_CAP = /\b(at most|up to|caps?|capped( at)?|max(imum)?|limit(ed)?( to)?)\b[^.]*\d/i;

let client: Client;
let tools: Tool[];

beforeAll(async () => {
  const env = isolatedEnv();
  // No editor anywhere: tools/list needs none.
  const serve = await connectStdio(process.execPath, [CLI, 'serve', '--stdio', '--discover-dir', String(env.XDG_RUNTIME_DIR)], env);
  client = serve.client;
  tools = (await client.listTools()).tools;
}, 30_000);

afterAll(async () => {
  await client?.close();
});

function specOf(tool: Tool): ToolSpec {
  const spec = toolByName(tool.name);
  if (!spec) throw new Error(`${tool.name} is listed but not in the catalog`);
  return spec;
}

/** Every property schema under `schema`, with its name and path (through objects, arrays, unions). */
function properties(schema: JsonSchema, path = ''): { name: string; path: string; schema: JsonSchema }[] {
  const out: { name: string; path: string; schema: JsonSchema }[] = [];
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    out.push({ name, path: `${path}${name}`, schema: prop });
    out.push(...properties(prop, `${path}${name}.`));
  }
  if (schema.items) out.push(...properties(schema.items, `${path}[].`));
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) out.push(...properties(branch, path));
  return out;
}

/** The full output schema of a listed tool (the one its listed outputSchema summarises). */
function fullOutput(tool: Tool): JsonSchema {
  return jsonSchemaOf(specOf(tool).output, 'output') as JsonSchema;
}

/** The truncation flags of a result, at any depth, each with its own description if it has one. */
function truncationFlags(schema: JsonSchema): { name: string; description?: string }[] {
  return properties(schema)
    .filter((p) => /truncated/.test(p.name))
    .map((p) => ({ name: p.name, ...(p.schema.description === undefined ? {} : { description: p.schema.description }) }));
}

/** Whether a schema admits free strings (a string type with no enum or const), here or in a union. */
function freeString(schema: JsonSchema): boolean {
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.includes('string') && schema.enum === undefined && schema.const === undefined) return true;
  if (schema.items && freeString(schema.items)) return true;
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some(freeString);
}

describe('every tool in tools/list keeps the conventions', () => {
  it('lists the whole catalog, in order', () => {
    expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
  });

  it('has a title and a description that says when to use it and points to another tool', () => {
    const names = tools.map((t) => t.name);
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      // Once, at the top (spec 2025-06-18 "Tool"): annotations do not repeat it.
      expect(tool.annotations?.title, tool.name).toBeUndefined();
      expect(tool.description?.length ?? 0, `${tool.name}: a description of a sentence or more`).toBeGreaterThan(60);
      const others = names.filter((n) => n !== tool.name && new RegExp(`\\b${n}\\b`).test(tool.description ?? ''));
      expect(others, `${tool.name}: its description names no other tool to use instead`).not.toEqual([]);
    }
  });

  it('declares every annotation, and they are honest about its permission', () => {
    for (const tool of tools) {
      const spec = specOf(tool);
      const a = tool.annotations ?? {};
      expect(a, tool.name).toMatchObject({
        readOnlyHint: expect.any(Boolean),
        destructiveHint: expect.any(Boolean),
        idempotentHint: expect.any(Boolean),
        openWorldHint: false,
      });
      // A read-only tool needs no more than the read scope and cannot destroy anything.
      if (a.readOnlyHint) {
        expect(spec.permission, `${tool.name} is readOnlyHint but needs "${spec.permission}"`).toBe('read');
        expect(a.destructiveHint, `${tool.name} is read-only yet destructive`).toBe(false);
      }
      // A tool that needs write, open, save, exec or terminal changes the editor.
      if (spec.permission !== 'read') expect(a.readOnlyHint, `${tool.name} needs "${spec.permission}" but claims readOnlyHint`).toBe(false);
    }
  });

  it('takes a strict object with described parameters, `editor` optional where it routes to one', () => {
    for (const tool of tools) {
      const input = tool.inputSchema as JsonSchema;
      expect(input.type, tool.name).toBe('object');
      expect(input.additionalProperties, `${tool.name}: unknown arguments must be refused`).toBe(false);
      for (const [name, prop] of Object.entries(input.properties ?? {})) {
        expect(prop.description, `${tool.name}.${name} has no description`).toBeTruthy();
      }
      if (specOf(tool).routing === 'editor') {
        expect(input.properties?.editor, `${tool.name} takes no \`editor\``).toBeDefined();
        expect(input.required ?? [], `${tool.name}: \`editor\` must be optional`).not.toContain('editor');
      }
    }
  });

  it('makes every categorical parameter an enum', () => {
    const offenders: string[] = [];
    for (const tool of tools) {
      for (const p of properties(tool.inputSchema as JsonSchema)) {
        if (CATEGORICAL.test(p.name) && freeString(p.schema)) offenders.push(`${tool.name}: ${p.path}`);
      }
    }
    expect(offenders, 'free-string categorical parameters').toEqual([]);
  });

  it('has an object outputSchema, and states the cap of every list or text result', () => {
    for (const tool of tools) {
      const output = tool.outputSchema as JsonSchema | undefined;
      expect(output?.type, tool.name).toBe('object');
      const lists = Object.entries(fullOutput(tool).properties ?? {}).filter(([name, p]) => p.type === 'array' || /^(text|lines|output|content)$/.test(name));
      if (lists.length === 0) continue;
      expect(tool.description, `${tool.name} returns ${lists.map(([n]) => n).join(', ')} but states no cap`).toMatch(STATES_A_CAP);
    }
  });

  it('explains its truncation flags, in the description or their own, so a client knows how to get the rest', () => {
    for (const tool of tools) {
      for (const flag of truncationFlags(fullOutput(tool))) {
        // Named, or covered by a pattern such as "each list has a *_truncated flag", or saying what it means itself.
        const named = tool.description?.includes(flag.name) || (flag.name.endsWith('_truncated') && tool.description?.includes('*_truncated'));
        expect(named || (flag.description ?? '').length > 10, `${tool.name} returns \`${flag.name}\` without explaining it`).toBe(true);
      }
    }
  });
});

describe('the result checks themselves', () => {
  const readBufferSchema = (): unknown => jsonSchemaOf(specOf(tools.find((t) => t.name === 'read_buffer') as Tool).output, 'output');

  it('a structuredContent that does not match its outputSchema fails the test', () => {
    const good = { buf: 1, path: null, changedtick: 3, total_lines: 1, start_line: 1, end_line: 1, lines: ['x'], truncated: false, next_start_line: null };
    expect(() => assertMatchesSchema(readBufferSchema(), good, 'read_buffer')).not.toThrow();
    expect(() => assertMatchesSchema(readBufferSchema(), { ...good, lines: 'x' }, 'read_buffer')).toThrow(/outputSchema/);
    const { changedtick: _dropped, ...missing } = good;
    expect(() => assertMatchesSchema(readBufferSchema(), missing, 'read_buffer')).toThrow(/outputSchema/);
  });

  it('an error without a known code or a hint fails the test', () => {
    const result = (error: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify({ error }) }], isError: true });
    expect(errorOf('t', result({ code: 'NO_EDITOR', message: 'm', hint: 'h' })).code).toBe('NO_EDITOR');
    expect(() => errorOf('t', result({ code: 'NO_EDITOR', message: 'm' }))).toThrow(/code, message, hint/);
    expect(() => errorOf('t', result({ code: 'SOMETHING_ELSE', message: 'm', hint: 'h' }))).toThrow(/code, message, hint/);
    expect(() => errorOf('t', result({ code: 'NO_EDITOR', message: 'm', hint: ' ' }))).toThrow(/empty/);
  });

  it('a tool with no editor online fails with a code and a hint naming the next step', async () => {
    const res = await client.callTool({ name: 'read_buffer', arguments: {} });
    const error = errorOf('read_buffer', res as Parameters<typeof errorOf>[1]);
    expect(error.code).toBe('NO_EDITOR');
    expect(error.hint).toMatch(/list_editors/);
  });
});
