/**
 * The programs the tests need (needs.ts) from the machine's own release, without root and without
 * changing the machine: the packages, with what they depend on that the machine has not installed
 * (its dpkg database says which), are fetched with a private apt configuration (apt.ts) from the
 * archive the machine installs from (sources.ts) and unpacked into `<cache>/<need>/root`
 * (`.cache/machine/` by default, git-ignored). `<cache>/<need>/bin/` holds a wrapper per program
 * that runs it from there, on the machine's libc, with the unpacked libraries on LD_LIBRARY_PATH
 * (what it starts inherits them: they are only libraries the machine lacks). A need is fetched
 * once, then reused (`need.json` beside it marks a complete fetch).
 *
 * ALE is a Vim addon, not a program: `aleWrapper` makes a `vim` that runs a given Vim with the
 * unpacked ALE on its 'packpath', for a Vim that lacks it.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { privateApt, unpack, type PrivateApt } from './apt.ts';
import { NEEDS, type Need, type NeedName } from './needs.ts';
import { machineRelease, type MachineRelease } from './sources.ts';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../..');
/** Where fetched needs go unless told otherwise. */
export const MACHINE_CACHE = join(REPO, '.cache/machine');
/** Where the private apt configurations keep their package lists, shared with the editors' (cached between runs). */
export const APT_CACHE = join(REPO, '.cache/editors/apt');

/** What was fetched for a need, kept beside it (`need.json`). */
export interface FetchedNeed {
  name: NeedName;
  /** `debian bookworm`, say. */
  release: string;
  /** Every package unpacked, with its version. */
  packages: Record<string, string>;
  /** The directory of its wrappers: put it first on PATH. */
  bin: string;
}

export interface MachineOptions {
  /** Where fetched needs go (MACHINE_CACHE). */
  cache?: string;
  /** Where apt keeps its lists (APT_CACHE). */
  aptCache?: string;
  /** Where progress lines go. */
  log?: (line: string) => void;
  /** The machine's release (sources.ts `machineRelease`). */
  release?: () => MachineRelease;
}

interface ReleaseApt {
  apt: PrivateApt;
  release: MachineRelease;
}

/** The machine release's apt, by its lists' directory, once its lists were read in this process. */
const readLists = new Map<string, ReleaseApt>();

/** What was fetched for `name` into `cache`, or undefined when it has not been. */
export function fetchedNeed(name: NeedName, cache = MACHINE_CACHE): FetchedNeed | undefined {
  const record = join(cache, name, 'need.json');
  return existsSync(record) ? (JSON.parse(readFileSync(record, 'utf8')) as FetchedNeed) : undefined;
}

/** Fetches each of `names` not fetched into the cache yet; resolves with what each is. */
export function ensureNeeds(names: readonly NeedName[], options: MachineOptions = {}): FetchedNeed[] {
  const cache = options.cache ?? MACHINE_CACHE;
  const log = options.log ?? (() => {});
  const aptOnce = (): ReleaseApt => {
    const dir = options.aptCache ?? APT_CACHE;
    let apt = readLists.get(dir);
    if (!apt) {
      const release = (options.release ?? machineRelease)();
      apt = { apt: privateApt(join(dir, release.codename), release.archive, release.codename, release.components), release };
      log(`reading ${release.distribution} ${release.codename}'s package lists from ${release.archive.uri}`);
      apt.apt.update();
      readLists.set(dir, apt);
    }
    return apt;
  };
  return names.map((name) => fetchedNeed(name, cache) ?? fetchNeed(name, cache, aptOnce()));
}

/** The packages the machine's dpkg database holds as installed. */
function installedPackages(): Set<string> {
  const out = execFileSync('dpkg-query', ['-W', '-f=${Package} ${db:Status-Abbrev}\n'], { encoding: 'utf8' });
  return new Set(out.split('\n').filter((l) => / ii/.test(l)).map((l) => l.split(' ')[0] ?? ''));
}

/**
 * Fetches and unpacks `name` into a directory of its own, then puts it in place in one rename, so
 * that a run reading the cache never sees half of one. Wrappers name the final place.
 */
function fetchNeed(name: NeedName, cache: string, { apt, release }: ReleaseApt): FetchedNeed {
  const need: Need = NEEDS[name];
  for (const pkg of need.packages) {
    if (!apt.candidate(pkg)) throw new Error(`${release.distribution} ${release.codename} has no package ${pkg}`);
  }
  const installed = installedPackages();
  const wanted = need.alone ? [...need.packages] : apt.needed(need.packages, (p) => installed.has(p) && !need.together?.test(p));

  const final = join(cache, name);
  const building = `${final}.${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  try {
    const debs = apt.download(wanted, join(building, 'debs'));
    unpack(debs, join(building, 'root'));
    const packages: Record<string, string> = Object.fromEntries(debs.map((deb) => execFileSync('dpkg-deb', ['--show', '--showformat=${Package} ${Version}', deb], { encoding: 'utf8' }).split(' ')));
    rmSync(join(building, 'debs'), { recursive: true });

    const unusable = need.unusable?.(join(building, 'root'));
    if (unusable) throw new Error(unusable);
    // Paths are worked out in the building directory and written for the final one.
    const relocate = (path: string): string => (path.startsWith(building) ? final + path.slice(building.length) : path);
    const libraries = libraryDirs(join(building, 'root')).map(relocate);
    mkdirSync(join(building, 'bin'));
    for (const [program, launch] of Object.entries(need.programs)) {
      const { command, env } = launch(join(building, 'root'));
      if (!command[0] || !existsSync(command[0])) throw new Error(`${need.packages.join(', ')} of ${release.distribution} ${release.codename} did not provide ${command[0] ?? program}`);
      const wrapper = join(building, 'bin', program);
      writeFileSync(wrapper, wrapperText(`${program}: from ${release.distribution} ${release.codename}'s ${need.packages.join(', ')}, unpacked by scripts/editors/machine.ts (see there).`, command.map(relocate), Object.fromEntries(Object.entries(env).map(([k, v]) => [k, relocate(v)])), libraries));
      chmodSync(wrapper, 0o755);
    }
    const fetched: FetchedNeed = { name, release: `${release.distribution} ${release.codename}`, packages, bin: join(final, 'bin') };
    writeFileSync(join(building, 'need.json'), `${JSON.stringify(fetched, null, 2)}\n`);
    rmSync(final, { recursive: true, force: true });
    renameSync(building, final);
    return fetched;
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    throw error;
  }
}

/** The directories under `root` holding shared libraries (Python's extension modules aside). */
function libraryDirs(root: string): string[] {
  const dirs: string[] = [];
  const walk = (dir: string): void => {
    let holds = false;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!/^python\d/.test(entry.name)) walk(join(dir, entry.name));
      } else if (/\.so(\.\d+)*$/.test(entry.name)) holds = true;
    }
    if (holds) dirs.push(dir);
  };
  for (const top of ['lib', 'usr/lib']) {
    if (existsSync(join(root, top)) && lstatSync(join(root, top)).isDirectory()) walk(join(root, top));
  }
  return dirs.sort();
}

const quote = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;

/** A /bin/sh wrapper running `command` with `env`, and `libraries` before any LD_LIBRARY_PATH of the caller's. */
function wrapperText(comment: string, command: readonly string[], env: Record<string, string>, libraries: readonly string[]): string {
  const assignments = [...(libraries.length > 0 ? [`LD_LIBRARY_PATH=${quote(libraries.join(':'))}"\${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"`] : []), ...Object.entries(env).map(([k, v]) => `${k}=${quote(v)}`)];
  return ['#!/bin/sh', `# ${comment}`, `${assignments.map((a) => `${a} `).join('')}exec ${command.map(quote).join(' ')} "$@"`, ''].join('\n');
}

/**
 * A `vim` running `vim` (an absolute path) with the fetched ALE's vimfiles on its 'packpath', so
 * that `packadd ale` finds it; returns the directory holding it (put it first on PATH). One per Vim
 * wrapped, named by a hash of its path.
 */
export function aleWrapper(vim: string, ale: FetchedNeed): string {
  const vimfiles = join(dirname(ale.bin), 'root/usr/share/vim/vimfiles');
  const dir = join(dirname(ale.bin), 'for', createHash('sha256').update(vim).digest('hex').slice(0, 12));
  mkdirSync(dir, { recursive: true });
  const text = wrapperText(`vim: ${vim} with ALE from ${ale.release}'s vim-ale on its 'packpath', by scripts/editors/machine.ts.`, [vim, '--cmd', `let &packpath .= ',' . '${vimfiles.replaceAll("'", "''")}'`], {}, []);
  const temporary = join(dir, `vim.${process.pid}`);
  writeFileSync(temporary, text, { mode: 0o755 });
  renameSync(temporary, join(dir, 'vim'));
  return dir;
}
