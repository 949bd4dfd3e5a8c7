/**
 * Newer Neovims and Vims than the machine's, from Debian's own packages, without root and without
 * changing the machine: each one's packages and their libraries, that suite's libc included, are
 * fetched with a private apt configuration (apt.ts) from the machine's Debian archive (sources.ts)
 * and unpacked into `.cache/editors/<name>/root` (git-ignored). The editor's binary is patched
 * (with that suite's patchelf) to run through that libc's own loader and find its libraries in
 * that root, so that it is a program of its own (`v:progpath` is itself: Neovim's TUI starts its
 * server with it); what it starts (shells, language servers) runs with the machine's libc as
 * usual. `.cache/editors/<name>/bin/` holds a wrapper named `nvim` or `vim` that sets the
 * editor's runtime: Neovim's VIMRUNTIME and its tree-sitter parsers (`usr/lib/nvim`) on
 * 'runtimepath', as the packaged editor has them; Vim's VIMRUNTIME, and `$VIM` as Debian's
 * (`/usr/share/vim`, when the machine has it), whose `vimfiles` is on 'packpath' with the Vim
 * addons Debian installs there (vim-ale). Put a bin directory first on PATH to run that version.
 * A fetched editor is reused until fetched again with `refresh`.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { privateApt, unpack, type PrivateApt } from './apt.ts';
import { machineArchive, type DebianArchive } from './sources.ts';

export const CACHE = join(dirname(fileURLToPath(import.meta.url)), '../../.cache/editors');

interface EditorSource {
  /** The program's name, and so its wrapper's. */
  program: 'nvim' | 'vim';
  suite: string;
  package: string;
  /** The package versions this name stands for (the suite moves on; a newer one is refused). */
  version: RegExp;
}

/** The editors this script fetches, by the name a test run selects them by. */
export const EDITORS = {
  'nvim-0.10': { program: 'nvim', suite: 'trixie', package: 'neovim', version: /^0\.10\./ },
  'nvim-0.12': { program: 'nvim', suite: 'forky', package: 'neovim', version: /^0\.12\./ },
  'vim-9.1': { program: 'vim', suite: 'trixie', package: 'vim', version: /^2:9\.1\./ },
  'vim-9.2': { program: 'vim', suite: 'forky', package: 'vim', version: /^2:9\.2\./ },
} as const satisfies Record<string, EditorSource>;

export type EditorName = keyof typeof EDITORS;

/** What was fetched, kept beside it (`editor.json`); its presence marks a complete fetch. */
export interface FetchedEditor {
  name: EditorName;
  suite: string;
  /** The editor package's version, e.g. `0.12.4-1`. */
  version: string;
  /** Every package unpacked, with its version. */
  packages: Record<string, string>;
  /** What `<program> --version` says of itself (its first line; Vim's patches too). */
  reports: string;
}

export function isEditorName(name: string): name is EditorName {
  return Object.hasOwn(EDITORS, name);
}

/** The directory holding the wrapper of `name` (`nvim` or `vim`): put it first on PATH. */
export function binDir(name: EditorName): string {
  return join(CACHE, name, 'bin');
}

/** What was fetched for `name`, or undefined when it has not been. */
export function fetched(name: EditorName): FetchedEditor | undefined {
  const record = join(CACHE, name, 'editor.json');
  return existsSync(record) ? (JSON.parse(readFileSync(record, 'utf8')) as FetchedEditor) : undefined;
}

export interface EnsureOptions {
  /** Fetch again even when fetched before (the suite's newer packages). */
  refresh?: boolean;
  /** Where progress lines go. */
  log?: (line: string) => void;
}

/** Fetches each of `names` not fetched yet (all with `refresh`); resolves with what each is. */
export function ensureEditors(names: readonly EditorName[], options: EnsureOptions = {}): FetchedEditor[] {
  const log = options.log ?? (() => {});
  let archive: DebianArchive | undefined;
  const apts = new Map<string, PrivateApt>();
  const aptFor = (suite: string): PrivateApt => {
    let apt = apts.get(suite);
    if (!apt) {
      archive ??= machineArchive();
      apt = privateApt(join(CACHE, 'apt', suite), archive, suite);
      log(`reading Debian ${suite}'s package lists from ${archive.uri}`);
      apt.update();
      apts.set(suite, apt);
    }
    return apt;
  };
  return names.map((name) => {
    const known = fetched(name);
    if (known && !options.refresh) return known;
    const editor = fetchEditor(name, aptFor(EDITORS[name].suite));
    log(`fetched ${name}: ${editor.reports} (Debian ${editor.suite} ${EDITORS[name].package} ${editor.version}, ${Object.keys(editor.packages).length} packages) into ${join(CACHE, name)}`);
    return editor;
  });
}

/**
 * Fetches and unpacks `name` into a directory of its own, then puts it in place in one rename, so
 * that a run reading the cache never sees half of one. The binary is patched for its final place.
 */
function fetchEditor(name: EditorName, apt: PrivateApt): FetchedEditor {
  const source: EditorSource = EDITORS[name];
  const version = apt.candidate(source.package);
  if (!version) throw new Error(`Debian ${source.suite} has no package ${source.package}`);
  if (!source.version.test(version)) throw new Error(`Debian ${source.suite} now has ${source.package} ${version}, not the version ${name} stands for: update EDITORS in scripts/editors/editors.ts`);

  const final = join(CACHE, name);
  const building = `${final}.${process.pid}`;
  const root = join(final, 'root');
  rmSync(building, { recursive: true, force: true });
  try {
    const debs = apt.download(apt.closure([source.package, 'patchelf']), join(building, 'debs'));
    unpack(debs, join(building, 'root'));
    const packages: Record<string, string> = Object.fromEntries(debs.map((deb) => execFileSync('dpkg-deb', ['--show', '--showformat=${Package} ${Version}', deb], { encoding: 'utf8' }).split(' ')));
    rmSync(join(building, 'debs'), { recursive: true });

    const loader = findLoader(join(building, 'root'));
    const libs = relative(join(building, 'root'), dirname(loader));
    const binary = source.program === 'nvim' ? 'usr/bin/nvim' : 'usr/bin/vim.basic';
    // patchelf is a program of that suite too: run through its loader by hand, once.
    execFileSync(loader, ['--library-path', dirname(loader), join(building, 'root/usr/bin/patchelf'), '--set-interpreter', join(root, libs, basename(loader)), '--force-rpath', '--set-rpath', join(root, libs), join(building, 'root', binary)], { stdio: ['ignore', 'ignore', 'pipe'] });

    mkdirSync(join(building, 'bin'));
    const wrapper = join(building, 'bin', source.program);
    writeFileSync(wrapper, source.program === 'nvim' ? nvimWrapper(name, version, root) : vimWrapper(name, version, root, vimRuntime(join(building, 'root'))));
    chmodSync(wrapper, 0o755);

    // Patched for its final place, it runs here through the loader by hand.
    const said = execFileSync(loader, ['--library-path', dirname(loader), join(building, 'root', binary), '--version'], { encoding: 'utf8' }).split('\n');
    // Vim's first line has no patch level: its "Included patches" line does.
    const reports = [said[0], said.find((l) => l.startsWith('Included patches'))].filter(Boolean).join(', ');
    const editor: FetchedEditor = { name, suite: source.suite, version, packages, reports };
    writeFileSync(join(building, 'editor.json'), `${JSON.stringify(editor, null, 2)}\n`);
    rmSync(final, { recursive: true, force: true });
    renameSync(building, final);
    return editor;
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    throw error;
  }
}

/** The dynamic loader unpacked under `root` (libc6's: `usr/lib/<triplet>/ld-linux*.so.*`). */
function findLoader(root: string): string {
  for (const dir of readdirSync(join(root, 'usr/lib'))) {
    const lib = join(root, 'usr/lib', dir);
    if (!existsSync(lib) || !dir.endsWith('-linux-gnu')) continue;
    const loader = readdirSync(lib).find((f) => /^ld-linux.*\.so\.\d+$/.test(f));
    if (loader) return join(lib, loader);
  }
  throw new Error(`no dynamic loader in ${root}: libc6 was not unpacked`);
}

/** Vim's runtime directory under `root` (`usr/share/vim/vim92`), relative to it. */
function vimRuntime(root: string): string {
  const dir = readdirSync(join(root, 'usr/share/vim')).find((d) => /^vim\d+$/.test(d));
  if (!dir) throw new Error(`no Vim runtime in ${root}/usr/share/vim`);
  return `usr/share/vim/${dir}`;
}

const quote = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;

function nvimWrapper(name: EditorName, version: string, root: string): string {
  return [
    '#!/bin/sh',
    `# ${name}: Neovim from Debian ${EDITORS[name].suite}'s neovim ${version}, unpacked by scripts/editors (see there).`,
    `VIMRUNTIME=${quote(join(root, 'usr/share/nvim/runtime'))} exec ${quote(join(root, 'usr/bin/nvim'))} --cmd ${quote(`set rtp+=${join(root, 'usr/lib/nvim')}`)} "$@"`,
    '',
  ].join('\n');
}

function vimWrapper(name: EditorName, version: string, root: string, runtime: string): string {
  // Debian's $VIM, whose vimfiles/ holds the addons Debian packages install (vim-ale).
  const vim = existsSync('/usr/share/vim/vimfiles') ? '/usr/share/vim' : join(root, 'usr/share/vim');
  return [
    '#!/bin/sh',
    `# ${name}: Vim from Debian ${EDITORS[name].suite}'s vim ${version}, unpacked by scripts/editors (see there).`,
    `VIM=${quote(vim)} VIMRUNTIME=${quote(join(root, runtime))} exec ${quote(join(root, 'usr/bin/vim.basic'))} "$@"`,
    '',
  ].join('\n');
}
