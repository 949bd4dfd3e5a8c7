/**
 * The lsp_* tests' editors: a driver (helpers/editors.ts) on a copy of a fixture project
 * (test/fixtures/lsp/<ts|py|c>) whose user config starts a real language server the way a user's
 * would: Neovim through test/fixtures/lsp/init.lua (vim.lsp.config + vim.lsp.enable, vim.lsp.start or
 * vim.lsp.start_client, whichever that Neovim's users have), Vim through ALE (test/fixtures/lsp/vimrc.vim) or through vim-lsp
 * (test/fixtures/lsp/vim-lsp.vim, the copy in test/vendor/vim-lsp). `lspDriver` resolves once the
 * opened files are ready: their server has published their first diagnostics (Neovim:
 * a server gave its diagnostics, pushed or pulled; ALE has linted them; vim-lsp holds diagnostics for them), after which it
 * answers about the project (never a sleep: typescript-language-server answers a request sent
 * before that from a half-loaded project). `SERVERS` also holds where the fixture's names are and what each server should find.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nvimDriver, vimDriver, waitFor, type Driver } from './editors.ts';
import { needProgram } from './machine.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = join(ROOT, 'test/fixtures/lsp');
const BIN = join(ROOT, 'node_modules/.bin');

/** How long a server may take to analyse the opened files (a liveness bound, not a timing claim). */
const READY_MS = 60_000;

/** A position in a fixture: file (relative to the project), 1-based line and character column. */
export interface Place {
  file: string;
  line: number;
  col: number;
}

/** One language server and its fixture project, with what the tests expect of it. */
export interface ServerCase {
  /** The server's name as the editor reports it (the client's name, ALE's linter, or vim-lsp's server). */
  name: 'tsls' | 'pyright' | 'pylsp' | 'clangd';
  /** The filetypes the editor starts it for. */
  filetypes: string[];
  /** The fixture directory under test/fixtures/lsp. */
  fixture: string;
  cmd: string[];
  init_options?: Record<string, unknown>;
  /**
   * Neovim: offer these encodings in clangd's own extension (capabilities.offsetEncoding) and use
   * the one its answer to initialize names, as nvim-lspconfig's clangd configuration does.
   */
  offsetEncodings?: string[];
  /** Vim: define an ALE linter of this name for `cmd` (ALE has none, or not for this command). */
  define?: true;
  /** Files the editor opens and loads at startup (the first one current). */
  open: string[];
  /** A use of a member after a multi-byte and two astral characters, its name, where it is declared. */
  member: Place;
  memberName: string;
  memberDefinition: Place & { end_col: number };
  /** A call of a function after 'é😀😀'; its references, by file; its hover signature. */
  call: Place;
  callName: string;
  references: Record<string, number>;
  signature: RegExp;
  /** Where a rename across files is asked, the name there, the new name, and the files it changes. */
  rename: Place;
  renameFrom: string;
  renameTo: string;
  renamed: string[];
  /** A query of the project's symbols that finds `querySymbol` (null: the server has none). */
  query: string;
  querySymbol: string | null;
  /** Methods this server does not implement (the kinds of lsp_definition). */
  lacks: ('declaration' | 'implementation' | 'type_definition')[];
  /** A file's symbol tree: its top-level names, and one nested `child` of `parent`. */
  tree: { file: string; top: string[]; parent: string; child: string };
  /**
   * After a rename's edits, the server answers from every file's new (unsaved) text at once.
   * pylsp reads other modules from disk (and garbles its copy of a document that an incremental
   * change after an astral character reaches: see countsCodePoints); clangd rebuilds the header it
   * includes in the background.
   */
  followsEdits?: true;
  /**
   * The server answers with code point offsets where LSP says UTF-16 units (pylsp 1.7): its
   * columns after an astral character come early by one per such character.
   */
  countsCodePoints?: true;
}

/** typescript-language-server needs a TypeScript with tsserver.js: the project's own. */
const TSSERVER = createRequire(import.meta.url).resolve('typescript/lib/tsserver.js');

/** What the two Python servers share: the fixture and what they should find in it. */
const PYTHON = {
  filetypes: ['python'],
  fixture: 'py',
  open: ['shapes/main.py'],
  member: { file: 'shapes/main.py', line: 6, col: 23 },
  memberName: 'area',
  memberDefinition: { file: 'shapes/geometry.py', line: 11, col: 9, end_col: 13 },
  call: { file: 'shapes/main.py', line: 4, col: 20 },
  callName: 'total_area',
  references: { 'shapes/geometry.py': 1, 'shapes/main.py': 3 },
  signature: /total_area\(shapes: list\[Circle\]\) -> float/,
  rename: { file: 'shapes/main.py', line: 4, col: 20 },
  renameFrom: 'total_area',
  renameTo: 'sum_of_areas',
  renamed: ['shapes/geometry.py', 'shapes/main.py'],
  query: 'total',
} satisfies Partial<ServerCase>;

export const SERVERS: readonly ServerCase[] = [
  {
    name: 'tsls',
    filetypes: ['typescript'],
    fixture: 'ts',
    cmd: [join(BIN, 'typescript-language-server'), '--stdio'],
    // One tsserver and no typings installer, as many users set it: the tests ask nothing of the
    // syntax-only second server or of typings fetched from npm, and each cost a process and about
    // a second of CPU per start.
    init_options: { tsserver: { path: TSSERVER, useSyntaxServer: 'never' }, disableAutomaticTypingAcquisition: true },
    define: true,
    open: ['src/main.ts'],
    member: { file: 'src/main.ts', line: 6, col: 28 },
    memberName: 'area',
    memberDefinition: { file: 'src/geometry.ts', line: 3, col: 3, end_col: 7 },
    call: { file: 'src/main.ts', line: 4, col: 39 },
    callName: 'totalArea',
    references: { 'src/geometry.ts': 1, 'src/main.ts': 3 },
    signature: /totalArea\(shapes: Shape\[\]\): number/,
    rename: { file: 'src/main.ts', line: 6, col: 28 },
    renameFrom: 'area',
    renameTo: 'surface',
    renamed: ['src/geometry.ts', 'src/main.ts'],
    query: 'total',
    querySymbol: 'totalVolume',
    lacks: ['declaration'],
    followsEdits: true,
    tree: { file: 'src/geometry.ts', top: ['Shape', 'Circle', 'totalArea'], parent: 'Circle', child: 'area' },
  },
  {
    ...PYTHON,
    name: 'pyright',
    cmd: [join(BIN, 'pyright-langserver'), '--stdio'],
    querySymbol: 'total_area',
    lacks: ['implementation'],
    followsEdits: true,
    tree: { file: 'shapes/geometry.py', top: ['Circle', 'total_area'], parent: 'Circle', child: 'area' },
  },
  {
    ...PYTHON,
    name: 'pylsp',
    cmd: ['pylsp'],
    querySymbol: null,
    lacks: ['declaration', 'implementation', 'type_definition'],
    tree: { file: 'shapes/geometry.py', top: ['math', 'Circle', 'total_area'], parent: 'Circle', child: 'area' },
    countsCodePoints: true,
  },
  {
    name: 'clangd',
    filetypes: ['c', 'cpp'],
    fixture: 'c',
    cmd: ['clangd', '--log=error'],
    offsetEncodings: ['utf-8', 'utf-16'],
    // Every file open (compile_flags.txt gives the flags; a .h is filetype cpp): clangd knows the
    // references in open files at once, while its background index of the others comes later,
    // with no event a user's config sees (a rename through an incomplete index misses the header).
    open: ['main.c', 'geometry.c', 'geometry.h'],
    member: { file: 'main.c', line: 8, col: 26 },
    memberName: 'radius',
    memberDefinition: { file: 'geometry.h', line: 6, col: 10, end_col: 16 },
    call: { file: 'main.c', line: 6, col: 41 },
    callName: 'total_area',
    references: { 'geometry.c': 1, 'geometry.h': 1, 'main.c': 2 },
    signature: /double total_area\(const struct circle \*circles, int n\)/,
    rename: { file: 'main.c', line: 6, col: 41 },
    renameFrom: 'total_area',
    renameTo: 'sum_of_areas',
    renamed: ['geometry.c', 'geometry.h', 'main.c'],
    query: 'total',
    querySymbol: 'total_area',
    lacks: [],
    tree: { file: 'geometry.h', top: ['circle', 'total_area'], parent: 'circle', child: 'radius' },
  },
];

/** The fixture's files, by path relative to its project, with their text. */
export function fixtureFiles(fixture: string): Record<string, string> {
  const dir = join(FIXTURES, fixture);
  const files: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else files[relative(dir, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return files;
}

/** The editors' configuration of `servers`, as init.lua and vimrc.vim read it. */
export function serverConfig(servers: readonly ServerCase[]): string {
  return JSON.stringify(
    Object.fromEntries(
      servers.flatMap((s) => s.filetypes.map((ft) => [ft, { name: s.name, cmd: s.cmd, ...(s.init_options ? { init_options: s.init_options } : {}), ...(s.offsetEncodings ? { offset_encodings: s.offsetEncodings } : {}), ...(s.define ? { define: true } : {}) }])),
    ),
  );
}

export interface LspDriverOptions {
  /** More files in the project (or files replaced), e.g. one matching never_read. */
  files?: Record<string, string | Uint8Array>;
  /** Start the editor with no language server configured. */
  noServer?: boolean;
  /** Environment for the editor (and so for the servers it starts). */
  env?: Record<string, string>;
  /** Vim: start it with no language client loaded (neither ALE nor vim-lsp). */
  noClient?: boolean;
  /**
   * Vim with ALE: load vim-lsp too, with this server registered (test/fixtures/lsp/vim-lsp.vim);
   * with `noServer` (ALE has none), the opened files are ready by vim-lsp's diagnostics.
   */
  vimLsp?: ServerCase;
  /** Whether to wait for the opened files' first diagnostics (default: with a server that can start). */
  ready?: boolean;
  /** Vim: in Normal mode, keys through a pipe, so that its prompts take keys (editors.ts vimNormalDriver). */
  vimNormal?: boolean;
  /** Vim: the name it connects under ('': none the user chose; default 'test', as editors.ts has it). */
  name?: string;
}

/** The editors the lsp_* suites run on, for `describe.each`: Neovim (vim.lsp), and Vim with each language client. */
export const LSP_EDITORS = ['Neovim', 'Vim', 'Vim with vim-lsp'] as const;
export type LspEditor = (typeof LSP_EDITORS)[number];

/** An editor and the language client it asks: Neovim's vim.lsp, or Vim's ALE or vim-lsp. */
export type LspClient = 'nvim' | 'ale' | 'vim-lsp';

/** The client of an LSP_EDITORS entry. */
export function clientOf(editor: LspEditor): LspClient {
  return editor === 'Neovim' ? 'nvim' : editor === 'Vim' ? 'ale' : 'vim-lsp';
}

/** The user config a Vim with `client` sources. */
const VIM_CONFIG = { ale: 'vimrc.vim', 'vim-lsp': 'vim-lsp.vim' } as const;

/** A driver on a copy of `server`'s fixture, its opened files ready; see the module header. */
export async function lspDriver(client: LspClient, server: ServerCase, options: LspDriverOptions = {}): Promise<Driver> {
  // pylsp and clangd are the machine's (or fetched for the run); the npm servers are always here.
  for (const s of options.noServer ? [] : [server, ...(options.vimLsp ? [options.vimLsp] : [])]) if (!s.cmd[0]?.includes('/')) needProgram(s.cmd[0] ?? '');
  if (client === 'ale' && !options.noClient) needProgram('vim-ale');
  const files = { ...fixtureFiles(server.fixture), ...options.files };
  const config = options.noServer ? '{}' : serverConfig([server]);
  let d: Driver;
  const env = { ...options.env, VIMRELAY_TEST_LSP: config };
  if (client === 'nvim') {
    d = await nvimDriver({ files, open: server.open.slice(0, 1), env, args: ['--cmd', `luafile ${join(FIXTURES, 'init.lua')}`] });
  } else {
    const vimString = (text: string): string => `'${text.replaceAll("'", "''")}'`;
    const lets = Object.entries(env).map(([k, v]) => `let $${k} = ${vimString(v)}`);
    const also = options.vimLsp ? [`let $VIMRELAY_TEST_LSP = ${vimString(serverConfig([options.vimLsp]))}`, `source ${join(FIXTURES, VIM_CONFIG['vim-lsp'])}`] : [];
    const vimCmds = options.noClient ? ['filetype on'] : [...lets, `source ${join(FIXTURES, VIM_CONFIG[client])}`, ...also];
    d = await vimDriver({ files, open: server.open.slice(0, 1), vimCmds, vimNormal: options.vimNormal, ...(options.name === undefined ? {} : { name: options.name }) });
  }
  const readyBy = options.vimLsp && options.noServer ? 'vim-lsp' : client;
  try {
    // The other files to open are loaded and shown once each, as a user opening them would.
    for (const file of [...server.open.slice(1), server.open[0] ?? '']) await d.command(`edit ${file}`);
    if (options.ready ?? ((!options.noServer || options.vimLsp !== undefined) && !options.noClient)) {
      for (const file of server.open) {
        const buf = await d.bufnr(file);
        await waitFor(async () => ((await isReady(d, readyBy, buf)) ? true : undefined), READY_MS, `${server.name} to analyse ${file} in ${readyBy}`);
      }
    }
  } catch (error) {
    await d.stop();
    throw error;
  }
  return d;
}

/** Whether buffer `buf` has had its first diagnostics. */
async function isReady(d: Driver, client: LspClient, buf: number): Promise<boolean> {
  if (client === 'vim-lsp') {
    return Boolean(await d.expr(`has_key(lsp#internal#diagnostics#state#_get_all_diagnostics_grouped_by_uri_and_server(), lsp#utils#get_buffer_uri(${buf}))`));
  }
  const flag = client === 'nvim' ? 'test_lsp_ready' : 'ale_linted';
  return Boolean(await d.expr(`getbufvar(${buf}, ${JSON.stringify(flag)}, 0)`));
}

/** The absolute path of a fixture file in the driver's copy. */
export function pathIn(d: Driver, file: string): string {
  return join(d.cwd, file);
}

/** Characters `col`..`end_col` (1-based, end exclusive) of `text`. */
export function charsOf(text: string, col: number, endCol: number): string {
  return [...text].slice(col - 1, endCol - 1).join('');
}

/**
 * The column a server answers for character column `col` of `text`: the same, unless it counts
 * code points (ServerCase.countsCodePoints), when it comes early by the astral characters before.
 */
export function columnOf(server: ServerCase, text: string, col: number): number {
  if (!server.countsCodePoints) return col;
  return col - [...text].slice(0, col - 1).filter((c) => (c.codePointAt(0) ?? 0) > 0xffff).length;
}

/** test/fixtures/lsp/tap.mjs: runs $VIMRELAY_TAP_SERVER, logging what the editor sends it (see there). */
export const TAP = join(FIXTURES, 'tap.mjs');

/** A JSON-RPC message as the tap logged it. */
export interface TapMessage {
  id?: number;
  method?: string;
  params?: { id?: number };
}

/** The messages in a tap's log (Content-Length framing, LSP 3.17 "Base Protocol"); none before it exists. */
export function tapMessages(log: string): TapMessage[] {
  if (!existsSync(log)) return [];
  const stream = readFileSync(log);
  const out: TapMessage[] = [];
  let at = 0;
  for (;;) {
    const end = stream.indexOf('\r\n\r\n', at);
    if (end < 0) return out;
    const length = Number(/Content-Length: (\d+)/i.exec(stream.subarray(at, end).toString())?.[1]);
    if (stream.length < end + 4 + length) return out;
    out.push(JSON.parse(stream.subarray(end + 4, end + 4 + length).toString('utf8')) as TapMessage);
    at = end + 4 + length;
  }
}
