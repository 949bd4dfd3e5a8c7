/**
 * apt with a configuration of its own, for one suite of a Debian or Ubuntu archive: its sources list, package lists and
 * caches live in a private directory, so that fetching packages of another release changes
 * nothing on the machine and needs no root. The machine's apt settings (a proxy, say) still
 * apply; its sources, preferences (pinning) and installed-package state do not. `update()` reads
 * the suite's package lists, `closure()` resolves what packages need to run (Depends and
 * Pre-Depends, recursively), `download()` fetches .deb files; `unpack()` extracts them with
 * `dpkg -x` (no maintainer scripts run, nothing is registered).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DebianArchive } from './sources.ts';

export interface PrivateApt {
  update(): void;
  /** The candidate version of `name` in the suite, or undefined when the suite has none. */
  candidate(name: string): string | undefined;
  /** `names` and every package they depend on to run, real packages only, sorted. */
  closure(names: readonly string[]): string[];
  /**
   * `names` and what they need to run (Depends and Pre-Depends, recursively) that `installed`
   * lacks: of each dependency with alternatives (`a | b`, or a virtual package), one installed or
   * already chosen satisfies it, else the first is chosen, as apt does. Sorted.
   */
  needed(names: readonly string[], installed: (name: string) => boolean): string[];
  /** Downloads `names` into `dir`; returns the .deb files there. */
  download(names: readonly string[], dir: string): string[];
}

/** apt for `suite` of `archive`, reading `components` of it, with its state under `dir`. */
/** `apt-cache depends` options leaving Depends and Pre-Depends alone. */
const DEPENDS_ONLY = ['--no-recommends', '--no-suggests', '--no-conflicts', '--no-breaks', '--no-replaces', '--no-enhances'];

/**
 * The dependencies `apt-cache depends` prints, by package (each stanza opens with its unindented
 * name), as groups of alternatives, each a list of real package names: ` |Depends: a` opens a group
 * that the next unbarred line closes; a virtual `<name>` stands for the packages listed under it
 * (indented four spaces).
 */
export function dependencyGroups(out: string): Map<string, string[][]> {
  const packages = new Map<string, string[][]>();
  let groups: string[][] = [];
  let open: string[] = [];
  // The group the last dependency line went into: its providers join it.
  let last: string[] = open;
  for (const line of out.split('\n')) {
    const dependency = /^ ([| ])(?:Pre)?Depends: (\S+)$/.exec(line);
    const provider = /^ {4}(\S+)$/.exec(line)?.[1];
    if (dependency) {
      const [, bar, name = ''] = dependency;
      // A virtual package is no choice itself: the packages providing it are.
      if (!name.startsWith('<')) open.push(name.replace(/:any$/, ''));
      last = open;
      if (bar === ' ') {
        groups.push(open);
        open = [];
      }
    } else if (provider) {
      last.push(provider.replace(/:any$/, ''));
    } else if (/^\S/.test(line)) {
      groups = [];
      packages.set(line.trim(), groups);
      open = [];
      last = open;
    }
  }
  for (const [name, found] of packages) packages.set(name, found.filter((group) => group.length > 0));
  return packages;
}

export function privateApt(dir: string, archive: DebianArchive, suite: string, components: readonly string[] = ['main']): PrivateApt {
  const lists = join(dir, 'lists');
  const cache = join(dir, 'cache');
  mkdirSync(join(lists, 'partial'), { recursive: true });
  mkdirSync(join(cache, 'archives/partial'), { recursive: true });
  const sourceList = join(dir, 'sources.list');
  writeFileSync(sourceList, `deb ${archive.signedBy ? `[signed-by=${archive.signedBy}] ` : ''}${archive.uri} ${suite} ${components.join(' ')}\n`);
  const options = [
    `Dir::Etc::SourceList=${sourceList}`,
    'Dir::Etc::SourceParts=/dev/null',
    'Dir::Etc::Preferences=/dev/null',
    'Dir::Etc::PreferencesParts=/dev/null',
    `Dir::State::Lists=${lists}`,
    'Dir::State::status=/dev/null',
    `Dir::Cache=${cache}`,
    'Acquire::Languages=none',
    // As root, apt downloads as the user _apt, who may not write into this directory.
    'APT::Sandbox::User=root',
  ].flatMap((o) => ['-o', o]);
  const run = (command: string, args: readonly string[], cwd?: string): string => {
    try {
      return execFileSync(command, [...options, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...(cwd ? { cwd } : {}) });
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr ?? '';
      throw new Error(`${command} ${args.join(' ')} (${suite}) failed: ${stderr.trim() || String(error)}`, { cause: error });
    }
  };
  return {
    update: () => void run('apt-get', ['-qq', 'update']),
    candidate(name) {
      const version = /^\s*Candidate:\s*(\S+)/m.exec(run('apt-cache', ['policy', name]))?.[1];
      return version && version !== '(none)' ? version : undefined;
    },
    closure(names) {
      const out = run('apt-cache', ['depends', '--recurse', ...DEPENDS_ONLY, ...names]);
      // Top-level lines name the packages; `<name>` is a virtual package, provided by one listed too.
      return [...new Set(out.split('\n').filter((l) => /^[a-z0-9]/.test(l)).map((l) => l.trim()))].sort();
    },
    needed(names, installed) {
      // One recursive listing (every alternative's dependencies too), then the choice made here.
      const depends = dependencyGroups(run('apt-cache', ['depends', '--recurse', ...DEPENDS_ONLY, ...names]));
      const chosen = new Set(names);
      const pending = [...names];
      for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
        for (const group of depends.get(name) ?? []) {
          const first = group[0];
          if (!first || group.some((alternative) => installed(alternative) || chosen.has(alternative))) continue;
          chosen.add(first);
          pending.push(first);
        }
      }
      return [...chosen].sort();
    },
    download(names, into) {
      mkdirSync(into, { recursive: true });
      run('apt-get', ['-qq', 'download', ...names], into);
      return readdirSync(into).filter((f) => f.endsWith('.deb')).map((f) => join(into, f));
    },
  };
}

/** Extracts each .deb into `root`, as `dpkg -x` does: files only, no scripts run, nothing registered. */
export function unpack(debs: readonly string[], root: string): void {
  mkdirSync(root, { recursive: true });
  for (const deb of debs) execFileSync('dpkg', ['-x', deb, root], { stdio: ['ignore', 'ignore', 'pipe'] });
}
