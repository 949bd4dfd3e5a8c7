// Named toolsets (protocol/toolsets.ts) and what a request sees of the catalog through one and its
// grant (protocol/catalog-view.ts): which tools each set lists and which classes of call it serves,
// the names a URL or `--tools` may give, a tool added to the catalog joining the sets its class,
// name and arguments put it in, and tools/list narrowed by the grant's scopes, with lsp_rename
// listed as a preview where writing is not allowed.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { allowedClasses, classRefusal, listedFor, type CatalogView } from '../../protocol/catalog-view.ts';
import { CHANGES_TEXT, defineTool, permissionFor, type PermissionClass, type ToolSpec } from '../../protocol/tool.ts';
import { parseToolset, TOOLSET_NAMES, toolsetList, toolsetOf, WHOLE_CATALOG, type Toolset } from '../../protocol/toolsets.ts';
import { reviewArg } from '../../protocol/tools/review.ts';
import { toolByName, TOOLS } from '../../protocol/tools/index.ts';

const names = (tools: readonly { name: string }[]): string[] => tools.map((t) => t.name);

function toolset(text: string): Toolset {
  const parsed = parseToolset(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.toolset;
}

describe('the toolsets', () => {
  it('read: every tool whose plainest call reads, the lsp_* tools and review_status included, and nothing that writes', () => {
    const read = toolset('read');
    expect(names(read.tools)).toEqual([
      'list_editors', 'connect_editor', 'get_state_brief', 'get_state', 'read_buffer', 'grep_buffers', 'get_diagnostics',
      'lsp_definition', 'lsp_references', 'lsp_hover', 'lsp_symbols', 'lsp_calls', 'lsp_types', 'lsp_rename', 'lsp_code_actions', 'lsp_format', 'review_status',
    ]);
    expect(read.classes).toEqual(['read']);
    expect(read.plainClasses).toEqual(['read']);
  });

  it('edit: the write, open and save classes, with review_status and list_editors', () => {
    const edit = toolset('edit');
    expect(names(edit.tools)).toEqual([
      'list_editors', 'find_and_replace', 'apply_diff', 'write_buffer', 'substitute', 'undo', 'redo', 'set_cursor',
      'highlight_range', 'add_virtual_text', 'clear_decorations', 'open_file', 'save_buffer', 'lsp_rename', 'lsp_code_actions', 'lsp_format', 'review_status',
    ]);
    expect(edit.plainClasses).toEqual(['read', 'write', 'open', 'save']);
  });

  it('lsp: the lsp_* tools, renames applied with a write grant, and their reviews', () => {
    const lsp = toolset('lsp');
    expect(names(lsp.tools)).toEqual([
      'list_editors', 'lsp_definition', 'lsp_references', 'lsp_hover', 'lsp_symbols', 'lsp_calls', 'lsp_types', 'lsp_rename', 'lsp_code_actions', 'lsp_format', 'review_status',
    ]);
    expect(lsp.classes).toEqual(['read', 'write']);
    // What a navigation connector asks for first: reading; a rename's apply steps up.
    expect(lsp.plainClasses).toEqual(['read']);
  });

  it('exec: run_command, send_keys and send_to_terminal, and no reviews', () => {
    const exec = toolset('exec');
    expect(names(exec.tools)).toEqual(['list_editors', 'run_command', 'send_keys', 'send_to_terminal']);
    expect(exec.plainClasses).toEqual(['read', 'exec', 'terminal']);
  });

  it('show: the display-only tools of the write class, which change no text', () => {
    expect(names(toolset('show').tools)).toEqual(['list_editors', 'set_cursor', 'highlight_range', 'add_virtual_text', 'clear_decorations']);
  });

  it('every tool of the catalog is in some toolset, and every set lists only tools it can call', () => {
    const all = new Set(toolsetList().flatMap(({ toolset: t }) => names(t.tools)));
    expect(names(TOOLS).filter((n) => !all.has(n))).toEqual([]);
    for (const { name, toolset: t } of toolsetList()) {
      for (const spec of t.tools) expect(t.classes, `${name}: ${spec.name}`).toContain(permissionFor(spec, {}));
    }
  });

  it('combine with +, in any order and more than once, as the union in catalog order', () => {
    const both = toolset('lsp+read+lsp');
    expect(both.label).toBe('read+lsp');
    expect(names(both.tools)).toEqual(names(toolset('read').tools));
    expect(both.classes).toEqual(['read', 'write']);
    const execShow = toolset('show+exec');
    expect(names(execShow.tools)).toEqual(['list_editors', 'set_cursor', 'highlight_range', 'add_virtual_text', 'clear_decorations', 'run_command', 'send_keys', 'send_to_terminal']);
  });

  it('refuses a name that is no toolset, or an empty one, naming the toolsets', () => {
    for (const [text, says] of [
      ['raed', 'no toolset is named "raed"'],
      ['read+Exec', 'no toolset is named "Exec"'],
      ['', 'has an empty toolset name'],
      ['read+', 'has an empty toolset name'],
      ['all', 'no toolset is named "all"'],
    ] as const) {
      const parsed = parseToolset(text);
      expect(parsed.ok, text).toBe(false);
      const message = parsed.ok ? '' : parsed.message;
      expect(message, text).toContain(says);
      expect(message, text).toMatch(new RegExp(`Toolsets: ${TOOLSET_NAMES.join(', ')}, joined with "\\+" \\(read\\+lsp\\)\\.$`));
    }
  });

  it('a tool added to the catalog joins the sets its class, name and arguments put it in', () => {
    const hypothetical = defineTool({
      name: 'lsp_fold',
      title: 'Fold',
      description: 'Fold the code at a position; with apply, the fold is made.',
      permission: 'write',
      permissionOf: (args) => (args.apply === true ? 'write' : 'read'),
      routing: 'editor',
      annotations: CHANGES_TEXT,
      input: z.object({ line: z.number().int().positive().describe('Line of the position.'), apply: z.boolean().optional().describe('Make the fold.'), review: reviewArg }).strict(),
      output: z.object({ applied: z.boolean().describe('Whether it was made.') }),
    });
    const catalog: ToolSpec[] = [...TOOLS, hypothetical];
    const of = (n: Parameters<typeof toolsetOf>[0]): string[] => names(toolsetOf(n, catalog).tools);
    // A preview reads, an apply writes, its name says LSP.
    for (const set of [['read'], ['edit'], ['lsp']] as const) expect(of(set), set[0]).toContain('lsp_fold');
    expect(of(['show'])).not.toContain('lsp_fold');
    expect(of(['exec'])).not.toContain('lsp_fold');
  });

  it('the lsp_* tools that edit: previews read, applies write, and a code action that runs a server command needs exec', () => {
    // The hierarchies only read; the editing tools are in edit too, and destructive, so not in show.
    expect(names(toolset('edit').tools)).not.toContain('lsp_calls');
    expect(names(toolset('show').tools)).not.toContain('lsp_format');
    const actions = toolByName('lsp_code_actions');
    if (!actions) throw new Error('no lsp_code_actions');
    const at = { line: 1, col: 1, apply: true, expected_changedtick: 1 };
    const edit = { ...at, id: 'e0123abcd:Organize Imports' };
    const command = { ...at, id: 'x0123abcd:Extract to function' };
    expect(classRefusal(toolset('lsp'), actions, edit)).toBeNull();
    expect(classRefusal(toolset('read'), actions, edit)).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    // Neither lsp nor edit serves exec: a server command runs only where exec is served.
    for (const set of ['lsp', 'edit']) expect(classRefusal(toolset(set), actions, command), set).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', message: expect.stringContaining('needs the exec permission') } });
    expect(classRefusal(toolset('lsp+exec'), actions, command)).toBeNull();
    expect(classRefusal(WHOLE_CATALOG, actions, command)).toBeNull();
  });
});

describe('what a grant sees through a toolset', () => {
  const view = (text: string, scopes: PermissionClass[]): CatalogView => ({ toolset: text === '' ? WHOLE_CATALOG : toolset(text), scopes });

  it('a read grant at the whole catalog: the read tools, lsp_rename as a preview saying so, no write, exec or terminal', () => {
    const listed = listedFor(view('', ['read']));
    expect(names(listed)).toEqual(names(toolset('read').tools));
    const previews = ['lsp_rename', 'lsp_code_actions', 'lsp_format'];
    for (const name of previews) expect(listed.find((t) => t.name === name)?.description, name).toContain("Preview only here: this connection's grant lacks the write scope");
    // Every other tool is as the whole catalog lists it.
    for (const tool of listed.filter((t) => !previews.includes(t.name))) expect(tool.description).toBe(toolByName(tool.name)?.description);
  });

  it('the exec tools only with exec: run_command and send_keys with exec, send_to_terminal with terminal', () => {
    expect(names(listedFor(view('', ['read', 'write'])))).not.toContain('run_command');
    const exec = names(listedFor(view('', ['read', 'exec'])));
    expect(exec).toEqual(expect.arrayContaining(['run_command', 'send_keys']));
    expect(exec).not.toContain('send_to_terminal');
    expect(names(listedFor(view('', ['read', 'terminal'])))).toContain('send_to_terminal');
  });

  it('every class: the whole catalog, descriptions untouched', () => {
    const listed = listedFor(view('', ['read', 'write', 'open', 'save', 'exec', 'terminal']));
    expect(names(listed)).toEqual(names(TOOLS));
    expect(listed.map((t) => t.description)).toEqual(TOOLS.map((t) => t.description));
  });

  it('a toolset narrows a full grant: the read set lists lsp_rename as a preview, naming the toolset', () => {
    const listed = listedFor(view('read', ['read', 'write', 'exec']));
    expect(names(listed)).toEqual(names(toolset('read').tools));
    expect(listed.find((t) => t.name === 'lsp_rename')?.description).toContain("Preview only here: this endpoint's toolset (read) serves no write calls");
    expect(allowedClasses(view('read', ['read', 'write', 'exec']))).toEqual(['read']);
  });

  it('a grant narrows a toolset: the edit set with a write grant lists neither open_file nor save_buffer', () => {
    const listed = names(listedFor(view('edit', ['read', 'write'])));
    expect(listed).toContain('find_and_replace');
    expect(listed).not.toContain('open_file');
    expect(listed).not.toContain('save_buffer');
  });

  it('a call of a class the toolset does not serve is refused whatever the grant: an lsp_rename that applies, through read', () => {
    const rename = toolByName('lsp_rename');
    if (!rename) throw new Error('no lsp_rename');
    const refused = classRefusal(toolset('read'), rename, { line: 1, col: 1, new_name: 'x', apply: true });
    expect(refused).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(!refused?.ok && refused?.error.message).toContain('toolset (read)');
    expect(classRefusal(toolset('read'), rename, { line: 1, col: 1, new_name: 'x' })).toBeNull();
    expect(classRefusal(toolset('lsp'), rename, { line: 1, col: 1, new_name: 'x', apply: true })).toBeNull();
  });
});
